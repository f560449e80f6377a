import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { compileCelPolicyException } from '../exceptions/compile-exception';
import type { CelPolicyContext } from '../evaluate/input';
import { inputFor, matching, mutatingPolicy, pod } from '../testing';
import { evaluateMutatingPolicies } from './chain';
import { compileMutatingPolicy, mutatingPolicyErrors } from './compile';
import { evaluateMutatingPolicy, evaluateMutatingPolicyOnTarget } from './evaluate';
import { mutateExistingTargets } from './targets';
import type { MutatingPolicySpec } from './types';

const context: CelPolicyContext = { ports: {} };

const labels = (entries: string) => `Object{metadata: Object.metadata{labels: {${entries}}}}`;

const addLabel: MutatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: labels('"team": "a"') } }],
};

const nginx = pod('web', 'default', { containers: [{ name: 'nginx', image: 'nginx' }] });

async function run(spec: MutatingPolicySpec, object: KubeObject, ctx: CelPolicyContext = context, namespace?: string) {
  return evaluateMutatingPolicy(compileMutatingPolicy(mutatingPolicy('p', spec, namespace)), inputFor(object), ctx);
}

describe('evaluateMutatingPolicy', () => {
  it('applies an ApplyConfiguration and answers the patched object and its JSON Patch', async () => {
    const result = await run(addLabel, nginx);
    expect(result?.status).toBe('pass');
    expect(result?.response.rules).toEqual([
      expect.objectContaining({ name: '', type: 'Mutation', status: 'pass', message: 'success' }),
    ]);
    expect(result?.patchedResource?.metadata.labels).toEqual({ team: 'a' });
    expect(result?.patches).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }]);
    expect(nginx.metadata.labels).toBeUndefined();
  });

  it('merges containers by name as the Pod schema says, and chains mutations with variables', async () => {
    const result = await run(
      {
        matchConstraints: matching('', 'v1', 'pods'),
        variables: [{ name: 'registry', expression: '"registry.io/"' }],
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression:
                'Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, image: variables.registry + c.image})}}',
            },
          },
          {
            patchType: 'JSONPatch',
            jsonPatch: {
              expression:
                '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"image": object.spec.containers[0].image}}]',
            },
          },
        ],
      },
      pod('web', 'default', { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] }),
    );
    expect(result?.status).toBe('pass');
    expect(result?.patchedResource?.spec).toEqual({
      containers: [{ name: 'nginx', image: 'registry.io/nginx', ports: [{ containerPort: 80 }] }],
    });
    // The second mutation saw the object as the first patched it.
    expect(result?.patchedResource?.metadata.annotations).toEqual({ image: 'registry.io/nginx' });
  });

  it('skips when a match condition (which may read variables) is false, and does not apply when unmatched', async () => {
    const spec: MutatingPolicySpec = {
      ...addLabel,
      variables: [{ name: 'dev', expression: 'object.metadata.namespace == "dev"' }],
      matchConditions: [{ name: 'in-dev', expression: 'variables.dev' }],
    };
    expect((await run(spec, nginx))?.response.rules).toEqual([
      { name: '', type: 'Mutation', status: 'skip', message: 'skip' },
    ]);
    expect((await run(spec, pod('web', 'dev', { containers: [] })))?.status).toBe('pass');
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
    expect(await run(addLabel, configMap)).toBeUndefined();
  });

  it("evaluates audit annotations on the mutated object into the passing rule's properties", async () => {
    const spec: MutatingPolicySpec = {
      ...addLabel,
      auditAnnotations: [
        { key: 'team', valueExpression: 'object.metadata.labels.team' },
        { key: 'empty', valueExpression: '""' },
        { key: 'none', valueExpression: 'null' },
      ],
    };
    const result = await run(spec, nginx);
    expect(result?.status).toBe('pass');
    // Empty and null values are left out, as Kyverno leaves them.
    expect(result?.response.rules[0]?.properties).toEqual({ team: 'a' });
    expect((await run(addLabel, nginx))?.response.rules[0]?.properties).toBeUndefined();
  });

  it('answers an audit annotation that fails or is not a string as an error, and refuses duplicate keys', async () => {
    const failing = await run(
      { ...addLabel, auditAnnotations: [{ key: 'count', valueExpression: 'size(object.spec.containers)' }] },
      nginx,
    );
    expect(failing?.status).toBe('error');
    expect(failing?.message).toContain("auditAnnotation 'count'");
    const duplicate = mutatingPolicy('p', {
      ...addLabel,
      auditAnnotations: [
        { key: 'a', valueExpression: '"x"' },
        { key: 'a', valueExpression: '"y"' },
      ],
    });
    expect(mutatingPolicyErrors(duplicate)).toContainEqual({
      field: 'spec.auditAnnotations[1].key',
      message: 'Duplicate value: "a"',
    });
  });

  it('reports a mutation that fails as an error naming the expression, leaving no patch', async () => {
    const result = await run(
      {
        ...addLabel,
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "remove", path: "/spec/missing"}]' } },
        ],
      },
      nginx,
    );
    expect(result?.status).toBe('error');
    expect(result?.message).toMatch(/^failed to evaluate policy: spec\.mutations\[0\]\.jsonPatch\.expression/);
    expect(result?.patchedResource).toBeUndefined();
    expect(result?.patches).toEqual([]);
  });

  it('a match condition error is an error under Fail and a skip under Ignore', async () => {
    const failing: MutatingPolicySpec = {
      ...addLabel,
      matchConditions: [{ name: 'broken', expression: 'object.spec.missing.field == 1' }],
    };
    expect((await run(failing, nginx))?.status).toBe('error');
    expect((await run({ ...failing, failurePolicy: 'Ignore' }, nginx))?.status).toBe('skip');
  });

  it('keeps a NamespacedMutatingPolicy in its namespace', async () => {
    expect(await run(addLabel, nginx, context, 'team-a')).toBeUndefined();
    expect((await run(addLabel, pod('web', 'team-a', { containers: [] }), context, 'team-a'))?.status).toBe('pass');
  });

  it('applies CEL PolicyExceptions naming the policy', async () => {
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'web-ok', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'p', kind: 'MutatingPolicy' }],
        matchConditions: [{ name: 'web', expression: 'object.metadata.name == "web"' }],
      },
    } as unknown as KubeObject);
    const result = await run(addLabel, nginx, { ...context, exceptions: [exception] });
    expect(result?.response.rules).toEqual([
      expect.objectContaining({
        name: 'exception',
        status: 'skip',
        message: 'rule is skipped due to policy exception: kyverno/web-ok',
      }),
    ]);
  });

  it('lets a mutation read what an exception allows, naming the exception on the passing rule', async () => {
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'allow', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'p', kind: 'MutatingPolicy' }],
        matchConditions: [{ name: 'all', expression: 'true' }],
        allowedValues: ['b'],
      },
    } as unknown as KubeObject);
    const result = await run(
      {
        ...addLabel,
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: labels('"team": exceptions.allowedValues[0]') },
          },
        ],
      },
      nginx,
      { ...context, exceptions: [exception] },
    );
    expect(result?.patchedResource?.metadata.labels).toEqual({ team: 'b' });
    expect(result?.response.rules[0]).toMatchObject({ status: 'pass', exceptions: ['kyverno/allow'] });
  });

  it('lets match conditions read what an exception allows (Kyverno decides exceptions first)', async () => {
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'nginx-ok', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'p', kind: 'MutatingPolicy' }],
        matchConditions: [{ name: 'all', expression: 'true' }],
        images: ['nginx'],
      },
    } as unknown as KubeObject);
    const spec: MutatingPolicySpec = {
      ...addLabel,
      matchConditions: [
        { name: 'not-allowed', expression: '!object.spec.containers.all(c, c.image in exceptions.allowedImages)' },
      ],
    };
    expect(mutatingPolicyErrors(mutatingPolicy('p', spec))).toEqual([]);
    const excepted = await run(spec, nginx, { ...context, exceptions: [exception] });
    expect(excepted?.response.rules[0]).toMatchObject({ status: 'skip' });
    const other = pod('web', 'default', { containers: [{ name: 'app', image: 'busybox' }] });
    const mutated = await run(spec, other, { ...context, exceptions: [exception] });
    expect(mutated?.patchedResource?.metadata.labels).toEqual({ team: 'a' });
  });

  it('mutates pod controllers through autogen', async () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: { template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    } as KubeObject;
    const result = await run(
      {
        ...addLabel,
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{spec: Object.spec{dnsPolicy: "None"}}' },
          },
        ],
      },
      deployment,
    );
    expect(result?.status).toBe('pass');
    expect((result?.patchedResource?.spec as { template: { spec: unknown } }).template.spec).toEqual({
      containers: [{ name: 'c', image: 'i' }],
      dnsPolicy: 'None',
    });
  });
});

describe('mutate-existing', () => {
  const configMap = (name: string, namespace = 'apps'): KubeObject =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } }) as KubeObject;
  const candidates = [configMap('one'), configMap('two'), configMap('other', 'elsewhere')].map((object) => ({
    object,
    resource: { group: '', version: 'v1', resource: 'configmaps' },
  }));
  const existing: MutatingPolicySpec = {
    ...addLabel,
    evaluation: { mutateExisting: { enabled: true } },
    targetMatchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    },
  };
  const trigger = inputFor(pod('web', 'apps', { containers: [] }));

  it('selects the targets targetMatchConstraints match (any operation) and patches each as object', async () => {
    const compiled = compileMutatingPolicy(mutatingPolicy('existing', existing));
    const selection = await mutateExistingTargets(compiled, trigger, candidates, context);
    expect('targets' in selection && selection.targets.map((t) => t.metadata.name)).toEqual(['one', 'two', 'other']);
    const result = await evaluateMutatingPolicyOnTarget(compiled, configMap('one'), trigger, context);
    expect(result?.patchedResource).toEqual({
      ...configMap('one'),
      metadata: { name: 'one', namespace: 'apps', labels: { team: 'a' } },
    });
  });

  it('selects what the target expression names, and nothing when the trigger does not fire', async () => {
    const compiled = compileMutatingPolicy(
      mutatingPolicy('by-expression', {
        ...existing,
        targetMatchConstraints: { expression: '{"metadata": {"name": "two", "namespace": object.metadata.namespace}}' },
      }),
    );
    const selection = await mutateExistingTargets(compiled, trigger, candidates, context);
    expect('targets' in selection && selection.targets.map((t) => t.metadata.name)).toEqual(['two']);
    const skipped = await mutateExistingTargets(
      compileMutatingPolicy(
        mutatingPolicy('never', { ...existing, matchConditions: [{ name: 'no', expression: 'false' }] }),
      ),
      trigger,
      candidates,
      context,
    );
    expect(skipped).toEqual({ targets: [] });
  });

  it('lets the target expression read variables built from the trigger request', async () => {
    const compiled = compileMutatingPolicy(
      mutatingPolicy('by-request', {
        ...existing,
        variables: [
          { name: 'targetNamespace', expression: 'request.namespace' },
          { name: 'targetName', expression: 'request.name == "web" ? "one" : "two"' },
        ],
        targetMatchConstraints: {
          expression: '{"metadata": {"name": variables.targetName, "namespace": variables.targetNamespace}}',
        },
      }),
    );
    const selection = await mutateExistingTargets(compiled, trigger, candidates, context);
    expect(selection).toEqual({ targets: [configMap('one')] });
  });

  it('holds a separate target to targetMatchConditions, the trigger to matchConditions', async () => {
    const compiled = compileMutatingPolicy(
      mutatingPolicy('conditions', {
        ...existing,
        matchConditions: [{ name: 'pod-trigger', expression: 'object.kind == "Pod"' }],
        targetMatchConditions: [{ name: 'only-one', expression: 'object.metadata.name == "one"' }],
      }),
    );
    expect((await evaluateMutatingPolicyOnTarget(compiled, configMap('one'), trigger, context))?.status).toBe('pass');
    expect((await evaluateMutatingPolicyOnTarget(compiled, configMap('two'), trigger, context))?.status).toBe('skip');
    const errors = mutatingPolicyErrors(
      mutatingPolicy('bad', { ...existing, targetMatchConditions: [{ name: 'x', expression: '1' }] }),
    );
    expect(errors.map((error) => error.field)).toEqual(['spec.targetMatchConditions[0].expression']);
  });

  it('keeps a NamespacedMutatingPolicy to targets in its namespace', async () => {
    const compiled = compileMutatingPolicy(mutatingPolicy('mine', existing, 'apps'));
    const selection = await mutateExistingTargets(compiled, trigger, candidates, context);
    expect('targets' in selection && selection.targets.map((t) => t.metadata.name)).toEqual(['one', 'two']);
    expect(
      await evaluateMutatingPolicyOnTarget(compiled, configMap('other', 'elsewhere'), trigger, context),
    ).toBeUndefined();
  });
});

describe('evaluateMutatingPolicies', () => {
  it('chains policies and reinvokes IfNeeded ones when a later policy changed the object', async () => {
    const copyTeam = compileMutatingPolicy(
      mutatingPolicy('copy-team', {
        matchConstraints: matching('', 'v1', 'pods'),
        reinvocationPolicy: 'IfNeeded',
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression: labels('"copy": object.metadata.?labels.?team.orValue("none")'),
            },
          },
        ],
      }),
    );
    const setTeam = compileMutatingPolicy(mutatingPolicy('set-team', addLabel));
    const chain = await evaluateMutatingPolicies([copyTeam, setTeam], inputFor(nginx), context);
    expect(chain.patchedResource?.metadata.labels).toEqual({ copy: 'a', team: 'a' });
    expect(chain.results.map(({ policy, result }) => [policy.name, result.status])).toEqual([
      ['copy-team', 'pass'],
      ['set-team', 'pass'],
    ]);
    expect(chain.patches).toEqual([{ op: 'add', path: '/metadata/labels', value: { copy: 'a', team: 'a' } }]);
    const never = compileMutatingPolicy(
      mutatingPolicy('copy-once', { ...(copyTeam.policy.spec as MutatingPolicySpec), reinvocationPolicy: 'Never' }),
    );
    const once = await evaluateMutatingPolicies([never, setTeam], inputFor(nginx), context);
    expect(once.patchedResource?.metadata.labels).toEqual({ copy: 'none', team: 'a' });
  });
});
