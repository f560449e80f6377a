import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { OUT_OF_BUDGET } from '../cel/round';
import { attributesFor, namespace } from '../testing/attributes';
import { binding, configMap, deployment, vap } from '../testing/policies';
import { compileValidatingAdmissionPolicy } from './compile';
import { evaluateValidatingAdmissionPolicy, type VapContext } from './evaluate';
import { MAX_PARAMS_PER_BINDING, paramsFromObjects, type ParamSource } from './params';

const teamA = namespace('team-a', { env: 'prod' });
const MAX_3 = { validations: [{ expression: 'object.spec.replicas <= 3', message: 'at most 3 replicas' }] };

async function run(policy: JsonObject, bindings: JsonObject[], object: JsonObject, context: VapContext = {}) {
  return evaluateValidatingAdmissionPolicy(compileValidatingAdmissionPolicy(policy), bindings, attributesFor(object), {
    namespaceObject: teamA,
    ...context,
  });
}

describe('evaluateValidatingAdmissionPolicy: decisions and actions', () => {
  it("denies with kube-apiserver's message, reason Invalid and code 422", async () => {
    const result = await run(vap('max', MAX_3), [binding('max-b', 'max')], deployment('web', 5));
    expect(result.matched).toBe(true);
    expect(result.denied).toEqual({
      message: "ValidatingAdmissionPolicy 'max' with binding 'max-b' denied request: at most 3 replicas",
      reason: 'Invalid',
      code: 422,
      binding: 'max-b',
    });
    expect((await run(vap('max', MAX_3), [binding('max-b', 'max')], deployment('web', 2))).denied).toBeUndefined();
  });

  it("uses the validation's reason and its HTTP code", async () => {
    const policy = vap('max', { validations: [{ expression: 'false', reason: 'Forbidden' }] });
    const result = await run(policy, [binding('b', 'max')], deployment('web', 1));
    expect(result.denied).toMatchObject({ reason: 'Forbidden', code: 403 });
    expect(result.denied?.message).toBe(
      "ValidatingAdmissionPolicy 'max' with binding 'b' denied request: failed expression: false",
    );
  });

  it('words the failure from messageExpression, else message, else the expression', async () => {
    const policy = vap('msg', {
      validations: [
        {
          expression: 'object.spec.replicas < 0',
          messageExpression: "'got ' + string(object.spec.replicas)",
          message: 'static',
        },
        { expression: 'object.spec.replicas < 0', messageExpression: "'two\\nlines'", message: ' static ' },
        { expression: 'object.spec.replicas < 0', messageExpression: "'   '" },
        { expression: ' object.spec.replicas < 0 ' },
      ],
    });
    const result = await run(policy, [binding('b', 'msg', { validationActions: ['Audit'] })], deployment('web', 4));
    expect(result.validationFailures.map((f) => f.message)).toEqual([
      'got 4',
      'static',
      'failed expression: object.spec.replicas < 0',
      'failed expression: object.spec.replicas < 0',
    ]);
  });

  it('warns for Warn, records Audit failures with their index, and denies only for Deny', async () => {
    const policy = vap('p', { validations: [{ expression: 'true' }, { expression: 'false', message: 'no' }] });
    const result = await run(
      policy,
      [binding('warn', 'p', { validationActions: ['Warn', 'Audit'] })],
      deployment('web', 1),
    );
    expect(result.denied).toBeUndefined();
    expect(result.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': no"]);
    expect(result.validationFailures).toEqual([
      { message: 'no', policy: 'p', binding: 'warn', expressionIndex: 1, validationActions: ['Warn', 'Audit'] },
    ]);
  });

  it('ignores bindings of other policies, and skips requests the constraints or the binding do not cover', async () => {
    expect((await run(vap('p', MAX_3), [binding('b', 'other')], deployment('web', 9))).bindings).toEqual([]);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'team-a' } };
    expect((await run(vap('p', MAX_3), [binding('b', 'p')], pod)).matched).toBe(false);
    const onlyDb = binding('b', 'p', { matchResources: { objectSelector: { matchLabels: { app: 'db' } } } });
    const result = await run(vap('p', MAX_3), [onlyDb], deployment('web', 9));
    expect(result.matched).toBe(true);
    expect(result.bindings).toEqual([]);
    expect(result.denied).toBeUndefined();
  });

  it('applies a policy without matchConstraints to nothing, as kube does', async () => {
    const policy = vap('p', { validations: [{ expression: 'false' }] });
    delete (policy.spec as JsonObject).matchConstraints;
    expect((await run(policy, [binding('b', 'p')], deployment('web', 1))).matched).toBe(false);
  });

  it('never runs on admission configuration objects', async () => {
    const policy = vap('p', {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }],
      },
      validations: [{ expression: 'false' }],
    });
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'x' },
    };
    expect((await run(policy, [binding('b', 'p')], config)).matched).toBe(false);
    expect((await run(policy, [binding('b', 'p')], deployment('web', 1))).denied).toBeDefined();
  });
});

describe('evaluateValidatingAdmissionPolicy: errors and failurePolicy', () => {
  const broken = { validations: [{ expression: 'object.spec.missing > 1' }] };

  it('denies an expression error under failurePolicy Fail (the default)', async () => {
    const result = await run(vap('p', broken), [binding('b', 'p')], deployment('web', 1));
    expect(result.denied?.message).toMatch(
      /^ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.missing > 1' resulted in error: /,
    );
  });

  it('admits it under Ignore', async () => {
    const result = await run(
      vap('p', { ...broken, failurePolicy: 'Ignore' }),
      [binding('b', 'p')],
      deployment('web', 1),
    );
    expect(result.denied).toBeUndefined();
    expect(result.bindings[0]!.calls[0]!.decisions[0]).toMatchObject({ action: 'Admit', evaluation: 'Error' });
  });

  it('applies matchConditions: false skips the validations, an error goes by failurePolicy', async () => {
    const skip = vap('p', {
      ...MAX_3,
      matchConditions: [{ name: 'not-web', expression: "object.metadata.name != 'web'" }],
    });
    const skipped = await run(skip, [binding('b', 'p')], deployment('web', 9));
    expect(skipped.denied).toBeUndefined();
    expect(skipped.bindings[0]!.calls[0]!.decisions).toEqual([]);
    const erring = vap('p', { ...MAX_3, matchConditions: [{ name: 'bad', expression: 'object.nope == 1' }] });
    expect((await run(erring, [binding('b', 'p')], deployment('web', 1))).denied?.message).toMatch(
      /denied request: expression 'object.nope == 1' resulted in error/,
    );
    const ignored = vap('p', {
      ...MAX_3,
      failurePolicy: 'Ignore',
      matchConditions: [{ name: 'bad', expression: 'object.nope == 1' }],
    });
    expect((await run(ignored, [binding('b', 'p')], deployment('web', 9))).denied).toBeUndefined();
  });

  it('stops a call that spends its runtime budget', async () => {
    const policy = vap('p', {
      validations: [
        { expression: 'object.items.all(a, object.items.all(b, a + b >= 0))' },
        { expression: 'object.items.all(a, object.items.all(b, a + b >= 0))' },
      ],
    });
    const items = Array.from({ length: 300 }, (_, i) => i);
    const result = await run(policy, [binding('b', 'p')], deployment('web', 1, { items }), {
      bounds: { perExpressionSteps: 1_000_000, perCallSteps: 500_000 },
    });
    expect(result.denied?.message).toBe(
      `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ${OUT_OF_BUDGET}`,
    );
  });

  it('evaluates variables lazily, in order, and fails only the expressions that read a failing one', async () => {
    const policy = vap('p', {
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'double', expression: 'variables.replicas * 2' },
        { name: 'broken', expression: 'object.spec.nope' },
      ],
      validations: [
        { expression: 'variables.double <= 6', messageExpression: "'double is ' + string(variables.double)" },
      ],
    });
    const result = await run(policy, [binding('b', 'p')], deployment('web', 4));
    expect(result.denied?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: double is 8");
    const reading = vap('p', {
      variables: [{ name: 'broken', expression: 'object.spec.nope' }],
      validations: [{ expression: 'variables.broken == 1' }],
    });
    expect((await run(reading, [binding('b', 'p')], deployment('web', 4))).denied?.message).toMatch(
      /composited variable "broken" fails to evaluate/,
    );
  });
});

describe('evaluateValidatingAdmissionPolicy: params', () => {
  const limits = vap('limits', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    validations: [
      {
        expression: 'object.spec.replicas <= int(params.data.max)',
        messageExpression: "'over ' + params.metadata.name",
      },
    ],
  });
  const source = paramsFromObjects([
    configMap('small', { max: '2' }, { tier: 'limits' }),
    configMap('large', { max: '10' }, { tier: 'limits' }),
  ]);

  it('reads the param named by paramRef', async () => {
    const named = binding('b', 'limits', { paramRef: { name: 'small' } });
    expect((await run(limits, [named], deployment('web', 3), { params: source })).denied?.message).toBe(
      "ValidatingAdmissionPolicy 'limits' with binding 'b' denied request: over small",
    );
    const large = binding('b', 'limits', { paramRef: { name: 'large' } });
    expect((await run(limits, [large], deployment('web', 3), { params: source })).denied).toBeUndefined();
  });

  it('evaluates every param a selector picks', async () => {
    const selected = binding('b', 'limits', { paramRef: { selector: { matchLabels: { tier: 'limits' } } } });
    const result = await run(limits, [selected], deployment('web', 3), { params: source });
    expect(result.bindings[0]!.calls.map((c) => c.decisions[0]!.action)).toEqual(['Deny', 'Admit']);
    expect(result.denied?.message).toMatch(/over small$/);
  });

  it('denies when no param is found and parameterNotFoundAction is Deny (the default), admits with Allow', async () => {
    const missing = binding('b', 'limits', { paramRef: { name: 'absent' } });
    expect((await run(limits, [missing], deployment('web', 3), { params: source })).denied?.message).toBe(
      "ValidatingAdmissionPolicy 'limits' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    const allow = binding('b', 'limits', { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } });
    const allowed = await run(limits, [allow], deployment('web', 3), { params: source });
    expect(allowed.denied).toBeUndefined();
    expect(allowed.bindings[0]!.calls).toEqual([]);
  });

  it('looks namespaced params up in the request namespace and refuses them for cluster-scoped requests', async () => {
    const asked: (string | undefined)[] = [];
    const namespaced: ParamSource = {
      namespaced: () => true,
      get: (_kind, ns, name) => {
        asked.push(ns);
        return configMap(name, { max: '1' });
      },
      list: () => [],
    };
    await run(limits, [binding('b', 'limits', { paramRef: { name: 'small' } })], deployment('web', 1), {
      params: namespaced,
    });
    expect(asked).toEqual(['team-a']);
    const clusterPolicy = vap('limits', {
      ...(limits.spec as JsonObject),
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['nodes'] }],
      },
    });
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    const result = await run(clusterPolicy, [binding('b', 'limits', { paramRef: { name: 'small' } })], node, {
      params: namespaced,
    });
    expect(result.denied?.message).toMatch(/failed to configure binding: cannot use namespaced paramRef/);
  });

  it('takes params as plain objects too, and bounds how many one binding evaluates', async () => {
    const named = binding('b', 'limits', { paramRef: { name: 'small' } });
    const objects = [configMap('small', { max: '2' })];
    expect((await run(limits, [named], deployment('web', 3), { params: objects })).denied?.message).toMatch(
      /over small$/,
    );
    const many = Array.from({ length: MAX_PARAMS_PER_BINDING + 1 }, (_, i) =>
      configMap(`p${i}`, { max: '9' }, { tier: 'x' }),
    );
    const all = binding('b', 'limits', { paramRef: { selector: { matchLabels: { tier: 'x' } } } });
    expect((await run(limits, [all], deployment('web', 3), { params: many })).denied?.message).toBe(
      `ValidatingAdmissionPolicy 'limits' with binding 'b' denied request: failed to configure binding: paramRef selects ${MAX_PARAMS_PER_BINDING + 1} objects, more than the ${MAX_PARAMS_PER_BINDING} a binding may evaluate`,
    );
  });

  it('gives params their paramKind when the stored object has no type fields', async () => {
    const policy = vap('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: "params.kind == 'ConfigMap'" }],
    });
    const bare: ParamSource = {
      namespaced: () => true,
      get: () => ({ metadata: { name: 'x' }, data: {} }),
      list: () => [],
    };
    expect(
      (await run(policy, [binding('b', 'p', { paramRef: { name: 'x' } })], deployment('web', 1), { params: bare }))
        .denied,
    ).toBeUndefined();
  });
});

describe('evaluateValidatingAdmissionPolicy: audit annotations, namespaceObject, authorizer', () => {
  it('publishes audit annotations keyed <policy>/<key>, drops null and blank values, joins distinct values', async () => {
    const policy = vap('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      auditAnnotations: [
        { key: 'replicas', valueExpression: "'replicas ' + string(object.spec.replicas) + ' over ' + params.data.max" },
        { key: 'none', valueExpression: 'null' },
        { key: 'blank', valueExpression: "'  '" },
      ],
    });
    const source = paramsFromObjects([configMap('a', { max: '1' }), configMap('b', { max: '2' })]);
    const result = await run(
      policy,
      [
        binding('x', 'p', { paramRef: { name: 'a' } }),
        binding('y', 'p', { paramRef: { name: 'b' } }),
        binding('z', 'p', { paramRef: { name: 'a' } }),
      ],
      deployment('web', 4),
      { params: source },
    );
    expect(result.auditAnnotations).toEqual({ 'p/replicas': 'replicas 4 over 1, replicas 4 over 2' });
    expect(result.denied).toBeUndefined();
  });

  it('denies an audit annotation of the wrong type under Fail', async () => {
    const policy = vap('p', { auditAnnotations: [{ key: 'n', valueExpression: 'object.spec.replicas' }] });
    const result = await run(policy, [binding('b', 'p', { validationActions: ['Audit'] })], deployment('web', 4));
    expect(result.denied?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: valueExpression 'object.spec.replicas' resulted in unsupported return type: int. Return type must be either string or null.",
    );
  });

  it("exposes the namespace's labels, and none for cluster-scoped objects and Namespaces", async () => {
    const policy = vap('p', { validations: [{ expression: "namespaceObject.metadata.labels.env == 'prod'" }] });
    expect((await run(policy, [binding('b', 'p')], deployment('web', 1))).denied).toBeUndefined();
    const other = await run(policy, [binding('b', 'p')], deployment('web', 1), {
      namespaceObject: namespace('team-a', { env: 'dev' }),
    });
    expect(other.denied).toBeDefined();
    const nsPolicy = vap('ns', {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['namespaces'] }],
      },
      validations: [{ expression: 'namespaceObject == null' }],
    });
    expect(
      (await run(nsPolicy, [binding('b', 'ns')], namespace('team-a'), { namespaceObject: teamA })).denied,
    ).toBeUndefined();
  });

  it('answers authorizer checks for the requesting user', async () => {
    const policy = vap('p', {
      validations: [
        {
          expression: "authorizer.group('apps').resource('deployments').namespace('team-a').check('delete').allowed()",
        },
      ],
    });
    const object = deployment('web', 1);
    const asked: unknown[] = [];
    const result = await evaluateValidatingAdmissionPolicy(
      compileValidatingAdmissionPolicy(policy),
      [binding('b', 'p')],
      attributesFor(object, { userInfo: { username: 'alice', groups: ['devs'] } }),
      {
        namespaceObject: teamA,
        authorize: (question) => {
          asked.push(question);
          return { allowed: true };
        },
      },
    );
    expect(result.denied).toBeUndefined();
    expect(asked).toEqual([
      {
        user: 'alice',
        groups: ['devs'],
        resourceAttributes: { group: 'apps', resource: 'deployments', namespace: 'team-a', verb: 'delete' },
      },
    ]);
  });
});
