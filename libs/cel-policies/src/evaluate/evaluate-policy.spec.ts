import { describe, expect, it } from 'vitest';
import type { AccessReviewRequest } from '@edict/cel';
import type { KubeObject } from '@edict/foundation';
import type { ValidatingPolicySpec } from '../api/types';
import { compileValidatingPolicy } from '../compile/compile-policy';
import { inputFor, matching, pod, validatingPolicy } from '../testing';
import { evaluateValidatingPolicy } from './evaluate-policy';
import type { CelPolicyContext, CelPolicyInput } from './input';

const context: CelPolicyContext = { ports: {} };

const noPrivileged: ValidatingPolicySpec = {
  validationActions: ['Deny'],
  matchConstraints: matching('', 'v1', 'pods'),
  validations: [
    {
      expression: 'object.spec.containers.all(c, !(c.?securityContext.?privileged.orValue(false)))',
      message: 'privileged containers are not allowed',
    },
  ],
};

const goodPod = pod('good', 'default', { containers: [{ name: 'a', image: 'nginx' }] });
const badPod = pod('bad', 'default', {
  containers: [{ name: 'a', image: 'nginx', securityContext: { privileged: true } }],
});

async function evaluate(spec: ValidatingPolicySpec, input: CelPolicyInput, ctx = context, namespace?: string) {
  return evaluateValidatingPolicy(compileValidatingPolicy(validatingPolicy('p', spec, namespace)), input, ctx);
}

function deployment(name: string, containers: unknown[], labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { template: { metadata: { labels }, spec: { containers } } },
  } as KubeObject;
}

describe('evaluateValidatingPolicy: results', () => {
  it('passes and fails as Kyverno reports them', async () => {
    const good = await evaluate(noPrivileged, inputFor(goodPod));
    expect(good?.rules).toEqual([{ name: '', type: 'Validation', status: 'pass', message: 'success' }]);
    const bad = await evaluate(noPrivileged, inputFor(badPod));
    expect(bad?.rules).toEqual([
      {
        name: '',
        type: 'Validation',
        status: 'fail',
        message: 'privileged containers are not allowed',
        properties: { 'cel.validationIndex': '0' },
      },
    ]);
    expect(bad).toMatchObject({
      policy: { name: 'p', kind: 'ValidatingPolicy' },
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'bad', namespace: 'default' },
      validationFailureAction: 'Enforce',
      validationActions: ['Deny'],
      failurePolicy: 'Fail',
    });
  });

  it('does not apply when matchConstraints do not match', async () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
    } as KubeObject;
    expect(await evaluate(noPrivileged, inputFor(configMap))).toBeUndefined();
    expect(
      await evaluate(noPrivileged, inputFor(goodPod, { operation: 'DELETE', oldResource: goodPod })),
    ).toBeUndefined();
  });

  it('uses messageExpression, falls back to the index, and reports a message expression that fails', async () => {
    const spec = (validation: NonNullable<ValidatingPolicySpec['validations']>[number]): ValidatingPolicySpec => ({
      ...noPrivileged,
      validations: [{ expression: 'true' }, validation],
    });
    const messageOf = async (validation: NonNullable<ValidatingPolicySpec['validations']>[number]) =>
      (await evaluate(spec(validation), inputFor(badPod)))?.rules[0]?.message;
    expect(
      await messageOf({ expression: 'false', messageExpression: "'pod ' + object.metadata.name + ' refused'" }),
    ).toBe('pod bad refused');
    expect(await messageOf({ expression: 'false' })).toBe('CEL expression validation failed at index 1');
    expect(
      await messageOf({ expression: 'false', message: 'fixed', messageExpression: 'object.missing.field' }),
    ).toMatch(/^failed to evaluate message expression: /);
  });

  it('bounds a message expression result', async () => {
    const result = await evaluate(
      { ...noPrivileged, validations: [{ expression: 'false', messageExpression: 'object.metadata.name' }] },
      inputFor(pod('x'.repeat(100_000), 'default', { containers: [] })),
    );
    expect(result?.rules[0]?.message.length).toBeLessThanOrEqual(5 * 1024);
  });

  it('reports an expression that errors as an error, with the index of the validation', async () => {
    const result = await evaluate(
      { ...noPrivileged, validations: [{ expression: 'object.spec.nothing.here == 1' }] },
      inputFor(goodPod),
    );
    expect(result?.rules[0]).toMatchObject({ name: '', status: 'error', properties: { 'cel.validationIndex': '0' } });
    expect(result?.rules[0]?.message).toMatch(/^error: /);
  });

  it('carries the reason, the audit annotations (as properties) and the warnings of the Warn action', async () => {
    const result = await evaluate(
      {
        ...noPrivileged,
        validationActions: ['Warn', 'Audit'],
        validations: [{ expression: 'false', message: 'nope', reason: 'Forbidden' }],
        auditAnnotations: [
          { key: 'image', valueExpression: 'object.spec.containers[0].image' },
          { key: 'none', valueExpression: 'null' },
        ],
      },
      inputFor(goodPod),
    );
    expect(result?.rules).toEqual([
      {
        name: '',
        type: 'Validation',
        status: 'fail',
        message: 'nope',
        reason: 'Forbidden',
        properties: { image: 'nginx', 'cel.validationIndex': '0' },
      },
    ]);
    expect(result?.auditAnnotations).toEqual({ 'p/image': 'nginx' });
    expect(result?.warnings).toEqual(['nope']);
    expect(result?.validationFailureAction).toBe('Audit');
  });
});

describe('evaluateValidatingPolicy: audit annotations', () => {
  it('reports them on a pass too, as properties and as <policy>/<key> annotations', async () => {
    const result = await evaluate(
      { ...noPrivileged, auditAnnotations: [{ key: 'name', valueExpression: 'object.metadata.name' }] },
      inputFor(goodPod),
    );
    expect(result?.rules[0]).toEqual({
      name: '',
      type: 'Validation',
      status: 'pass',
      message: 'success',
      properties: { name: 'good' },
    });
    expect(result?.auditAnnotations).toEqual({ 'p/name': 'good' });
  });

  it('turns an annotation that is not a string into an evaluation error', async () => {
    const result = await evaluate(
      { ...noPrivileged, auditAnnotations: [{ key: 'n', valueExpression: 'size(object.spec.containers)' }] },
      inputFor(goodPod),
    );
    expect(result?.rules[0]).toMatchObject({ name: 'evaluation', status: 'error' });
    expect(result?.rules[0]?.message).toMatch(
      /^failed to load context: auditAnnotation 'n' must evaluate to a string or null/,
    );
  });
});

describe('evaluateValidatingPolicy: match conditions and failurePolicy', () => {
  const conditional: ValidatingPolicySpec = {
    ...noPrivileged,
    matchConditions: [{ name: 'prod-only', expression: "object.metadata.?labels.?env.orValue('') == 'prod'" }],
  };

  it('skips when a match condition is false, evaluates when all hold', async () => {
    expect((await evaluate(conditional, inputFor(badPod)))?.rules).toEqual([
      { name: '', type: 'Validation', status: 'skip', message: 'skip' },
    ]);
    const prod = pod('bad', 'default', badPod.spec as Record<string, unknown>, { env: 'prod' });
    expect((await evaluate(conditional, inputFor(prod)))?.rules[0]?.status).toBe('fail');
  });

  it('turns a match condition error into an error under Fail, a skip under Ignore', async () => {
    const erroring: ValidatingPolicySpec = {
      ...noPrivileged,
      matchConditions: [{ name: 'broken', expression: 'object.nope.x == 1' }],
    };
    const failed = await evaluate(erroring, inputFor(goodPod));
    expect(failed?.rules[0]).toMatchObject({ status: 'error', name: 'evaluation' });
    expect(failed?.rules[0]?.message).toMatch(/^failed to load context: matchCondition 'broken'/);
    const ignored = await evaluate({ ...erroring, failurePolicy: 'Ignore' }, inputFor(goodPod));
    expect(ignored?.rules[0]?.status).toBe('skip');
  });

  it('lets a false condition win over an erroring one', async () => {
    const spec: ValidatingPolicySpec = {
      ...noPrivileged,
      matchConditions: [
        { name: 'broken', expression: 'object.nope.x == 1' },
        { name: 'never', expression: 'false' },
      ],
    };
    expect((await evaluate(spec, inputFor(goodPod)))?.rules[0]?.status).toBe('skip');
  });
});

describe('evaluateValidatingPolicy: variables', () => {
  it('composes earlier variables; an unused variable that errors does not matter', async () => {
    const spec: ValidatingPolicySpec = {
      ...noPrivileged,
      variables: [
        { name: 'images', expression: 'object.spec.containers.map(c, c.image)' },
        { name: 'count', expression: 'size(variables.images)' },
        { name: 'broken', expression: 'object.spec.missing.value' },
      ],
      validations: [{ expression: 'variables.count == 1 && variables.images[0] == "nginx"' }],
    };
    expect((await evaluate(spec, inputFor(goodPod)))?.rules[0]?.status).toBe('pass');
  });

  it('reads variables by index too, and lets CEL absorb an unneeded variable error', async () => {
    const spec: ValidatingPolicySpec = {
      ...noPrivileged,
      variables: [
        { name: 'name', expression: 'object.metadata.name' },
        { name: 'broken', expression: 'object.spec.missing.value' },
      ],
      validations: [{ expression: "variables['name'] == 'good' && (true || variables.broken == 1)" }],
    };
    expect((await evaluate(spec, inputFor(goodPod)))?.rules[0]?.status).toBe('pass');
  });

  it('turns a variable that errors into an error of the expression that reads it', async () => {
    const spec: ValidatingPolicySpec = {
      ...noPrivileged,
      variables: [{ name: 'broken', expression: 'object.spec.missing.value' }],
      validations: [{ expression: 'variables.broken == 1' }],
    };
    expect((await evaluate(spec, inputFor(goodPod)))?.rules[0]?.status).toBe('error');
  });
});

describe('evaluateValidatingPolicy: what expressions see', () => {
  it('binds request, oldObject and namespaceObject as Kubernetes does', async () => {
    const spec: ValidatingPolicySpec = {
      validationActions: ['Audit'],
      matchConstraints: matching('', 'v1', 'pods'),
      validations: [
        {
          expression:
            "request.operation == 'UPDATE' && request.kind.kind == 'Pod' && request.resource.resource == 'pods' && request.namespace == 'default' && request.userInfo.username == 'alice' && oldObject.metadata.name == 'good' && namespaceObject.metadata.labels.team == 'a'",
        },
      ],
    };
    const namespaceObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'default', labels: { team: 'a' } },
    } as KubeObject;
    const input = inputFor(goodPod, {
      operation: 'UPDATE',
      oldResource: goodPod,
      user: { userInfo: { username: 'alice' } },
      namespaceObject,
    });
    expect((await evaluate(spec, input))?.rules[0]?.status).toBe('pass');
  });

  it("carries the request's objects in request, as Kyverno's policies see them (kube's do not)", async () => {
    const spec: ValidatingPolicySpec = {
      validationActions: ['Audit'],
      matchConstraints: matching('', 'v1', 'pods'),
      validations: [
        {
          expression:
            "request.object.metadata.name == 'good' && request.oldObject.metadata.name == 'bad' && has(request.object.spec)",
        },
      ],
    };
    expect(
      (await evaluate(spec, inputFor(goodPod, { operation: 'UPDATE', oldResource: badPod })))?.rules[0]?.status,
    ).toBe('pass');
    const created = { ...spec, validations: [{ expression: 'request.oldObject == null' }] };
    expect((await evaluate(created, inputFor(goodPod)))?.rules[0]?.status).toBe('pass');
  });

  it('builds request from the AdmissionRequest in admission, and binds null objects on DELETE', async () => {
    const spec: ValidatingPolicySpec = {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }],
      },
      validations: [
        {
          expression:
            "object == null && oldObject.metadata.name == 'good' && request.operation == 'DELETE' && request.name == 'good' && request.dryRun == true",
        },
      ],
    };
    const admissionRequest = {
      uid: 'u-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: 'good',
      namespace: 'default',
      operation: 'DELETE',
      dryRun: true,
      userInfo: { username: 'carol' },
    };
    const input: CelPolicyInput = {
      request: { operation: 'DELETE', oldResource: goodPod, admissionRequest },
      resource: { group: '', version: 'v1', resource: 'pods' },
    };
    const result = await evaluate(spec, input);
    expect(result?.rules[0]?.status).toBe('pass');
    expect(result?.resource).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'good', namespace: 'default' });
  });

  it('asks the authorizer, round by round', async () => {
    const asked: AccessReviewRequest[] = [];
    const spec: ValidatingPolicySpec = {
      ...noPrivileged,
      validations: [
        { expression: "authorizer.group('').resource('secrets').namespace('default').check('get').allowed()" },
      ],
    };
    const ctx: CelPolicyContext = {
      ports: {},
      authorizer: {
        review: (request) => {
          asked.push(request);
          return { allowed: request.user === 'alice' };
        },
      },
    };
    const alice = await evaluate(spec, inputFor(goodPod, { user: { userInfo: { username: 'alice' } } }), ctx);
    expect(alice?.rules[0]?.status).toBe('pass');
    const bob = await evaluate(spec, inputFor(goodPod, { user: { userInfo: { username: 'bob' } } }), ctx);
    expect(bob?.rules[0]?.status).toBe('fail');
    expect(
      asked.map((request) => [request.user, request.resourceAttributes?.resource, request.resourceAttributes?.verb]),
    ).toEqual([
      ['alice', 'secrets', 'get'],
      ['bob', 'secrets', 'get'],
    ]);
  });

  it('binds the payload as object in JSON mode', async () => {
    const spec: ValidatingPolicySpec = {
      evaluation: { mode: 'JSON' },
      validations: [{ expression: 'object.data.value > 10', message: 'too small' }],
    };
    const payload = (value: number): CelPolicyInput => ({
      request: { operation: 'CREATE' },
      resource: { group: '', version: '', resource: '' },
      jsonPayload: { metadata: { name: 'payload' }, data: { value } },
    });
    expect((await evaluate(spec, payload(11)))?.rules[0]?.status).toBe('pass');
    const small = await evaluate(spec, payload(5));
    expect(small?.rules[0]).toMatchObject({ status: 'fail', message: 'too small' });
    expect(small?.resource).toEqual({ apiVersion: '', kind: '', name: 'payload' });
  });
});

describe('evaluateValidatingPolicy: NamespacedValidatingPolicy', () => {
  it('only ever applies to objects in its own namespace', async () => {
    const inTeam = pod('bad', 'team-a', badPod.spec as Record<string, unknown>);
    expect((await evaluate(noPrivileged, inputFor(inTeam), context, 'team-a'))?.policy).toEqual({
      name: 'p',
      kind: 'NamespacedValidatingPolicy',
      namespace: 'team-a',
    });
    expect(await evaluate(noPrivileged, inputFor(badPod), context, 'team-a')).toBeUndefined();
    const anyNamespace: ValidatingPolicySpec = { ...noPrivileged, matchConstraints: matching('', 'v1', 'namespaces') };
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } as KubeObject;
    expect(await evaluate(anyNamespace, inputFor(namespace), context, 'team-a')).toBeUndefined();
  });
});

describe('evaluateValidatingPolicy: autogen', () => {
  const spec: ValidatingPolicySpec = {
    ...noPrivileged,
    matchConditions: [{ name: 'prod', expression: "object.metadata.?labels.?env.orValue('') == 'prod'" }],
  };

  it('validates pod controllers through the rewritten expressions', async () => {
    const privileged = [{ name: 'a', securityContext: { privileged: true } }];
    const bad = await evaluate(spec, inputFor(deployment('d', privileged, { env: 'prod' })));
    expect(bad?.rules[0]).toMatchObject({ status: 'fail', message: 'privileged containers are not allowed' });
    expect(bad?.resource.kind).toBe('Deployment');
    expect((await evaluate(spec, inputFor(deployment('d', privileged, { env: 'dev' }))))?.rules[0]?.status).toBe(
      'skip',
    );
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c', namespace: 'default' },
      spec: {
        jobTemplate: {
          spec: { template: { metadata: { labels: { env: 'prod' } }, spec: { containers: privileged } } },
        },
      },
    } as KubeObject;
    expect((await evaluate(spec, inputFor(cronJob)))?.rules[0]?.status).toBe('fail');
  });

  it('does not validate controllers left out of spec.autogen.podControllers', async () => {
    const onlyCronJobs: ValidatingPolicySpec = { ...spec, autogen: { podControllers: { controllers: ['cronjobs'] } } };
    expect(await evaluate(onlyCronJobs, inputFor(deployment('d', [], { env: 'prod' })))).toBeUndefined();
  });
});
