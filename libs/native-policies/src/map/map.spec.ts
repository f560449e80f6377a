import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  admitMutatingAdmissionPolicies,
  compileMutatingAdmissionPolicy,
  evaluateMutatingAdmissionPolicy,
  evaluateMutatingPolicyForCli,
  MutatingAdmissionPolicyError,
  type AdmissionAttributes,
} from '../index';

const API = 'admissionregistration.k8s.io/v1beta1';
const configMapRules = {
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
};

function policy(name: string, spec: JsonObject): JsonObject {
  return {
    apiVersion: API,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: configMapRules, ...spec },
  };
}

function binding(name: string, policyName: string, spec: JsonObject = {}): JsonObject {
  return { apiVersion: API, kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, ...spec } };
}

const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });

const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'team', labels: { app: 'x' } },
  data: { a: '1' },
};

function attributes(object: JsonObject = configMap): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    name: 'cm',
    namespace: 'team',
    object,
    oldObject: null,
  };
}

const labels = (object: JsonObject | null) => (object?.metadata as JsonObject).labels;

describe('compileMutatingAdmissionPolicy', () => {
  it('reports every field that does not compile', () => {
    const bad = policy('bad', {
      variables: [{ name: 'v', expression: 'nope(' }],
      matchConditions: [{ name: 'c', expression: '1' }],
      mutations: [apply("{'a': 1}"), { patchType: 'JSONPatch' }],
    });
    let error: unknown;
    try {
      compileMutatingAdmissionPolicy(bad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MutatingAdmissionPolicyError);
    expect((error as MutatingAdmissionPolicyError).errors.map((e) => e.field)).toEqual([
      'spec.variables[0].expression',
      'spec.matchConditions[0].expression',
      'spec.mutations[0].applyConfiguration.expression',
      'spec.mutations[1].jsonPatch',
    ]);
  });

  it('declares params only for a policy with a paramKind', () => {
    expect(() =>
      compileMutatingAdmissionPolicy(policy('p', { mutations: [apply('Object{data: params.data}')] })),
    ).toThrow(/params/);
  });
});

describe('evaluateMutatingAdmissionPolicy', () => {
  it('runs the mutations of each binding in order, with params and variables', async () => {
    const compiled = compileMutatingAdmissionPolicy(
      policy('team', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'team', expression: 'params.data.team' }],
        mutations: [
          apply("Object{metadata: Object.metadata{labels: {'team': variables.team}}}"),
          apply("Object{metadata: Object.metadata{labels: {'seen': object.metadata.labels.team}}}"),
        ],
      }),
    );
    const params = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'team' }, data: { team: 'blue' } },
    ];
    const evaluation = await evaluateMutatingAdmissionPolicy(
      compiled,
      [binding('b', 'team', { paramRef: { name: 'p' } }), binding('other', 'another-policy')],
      attributes(),
      { params },
    );
    expect(evaluation.errors).toEqual([]);
    expect(evaluation.invocations).toHaveLength(1);
    expect(evaluation.invocations[0]?.mutations.map((m) => m.status)).toEqual(['applied', 'applied']);
    expect(labels(evaluation.object)).toEqual({ app: 'x', team: 'blue', seen: 'blue' });
    expect(labels(configMap)).toEqual({ app: 'x' });
  });

  it('reports missing params as a binding error and skips unmet matchConditions', async () => {
    const withParams = compileMutatingAdmissionPolicy(
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [apply('Object{}')] }),
    );
    const missing = await evaluateMutatingAdmissionPolicy(
      withParams,
      [binding('b', 'p', { paramRef: { name: 'x' } })],
      attributes(),
      {
        params: [],
      },
    );
    expect(missing.errors[0]?.message).toContain('no params found');

    const conditional = compileMutatingAdmissionPolicy(
      policy('c', {
        matchConditions: [
          { name: 'labelled', expression: "has(object.metadata.labels) && 'skip' in object.metadata.labels" },
        ],
        mutations: [apply("Object{metadata: Object.metadata{labels: {'x': 'y'}}}")],
      }),
    );
    const skipped = await evaluateMutatingAdmissionPolicy(conditional, [binding('b', 'c')], attributes());
    expect(skipped.invocations[0]?.skipped).toBe(true);
    expect(skipped.object).toBe(configMap);
  });

  it('keeps going after a failing mutation and reports it with its field', async () => {
    const compiled = compileMutatingAdmissionPolicy(
      policy('e', {
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'remove', path: '/spec'}]" } },
          apply("Object{metadata: Object.metadata{labels: {'after': 'error'}}}"),
        ],
      }),
    );
    const evaluation = await evaluateMutatingAdmissionPolicy(compiled, [binding('b', 'e')], attributes());
    expect(evaluation.errors).toHaveLength(1);
    expect(evaluation.errors[0]?.message).toContain('spec.mutations[0].jsonPatch.expression: JSONPatch: operation 0');
    expect(labels(evaluation.object)).toEqual({ app: 'x', after: 'error' });
  });
});

describe('admitMutatingAdmissionPolicies', () => {
  it('denies on errors under failurePolicy Fail and ignores them under Ignore', async () => {
    const failing = (name: string, failurePolicy: string) =>
      compileMutatingAdmissionPolicy(
        policy(name, { failurePolicy, mutations: [apply('Object{spec: Object.spec{x: object.missing}}')] }),
      );
    const ignored = await admitMutatingAdmissionPolicies([failing('i', 'Ignore')], [binding('b', 'i')], attributes());
    expect(ignored.denied).toBeUndefined();
    expect(ignored.ignored).toHaveLength(1);
    const denied = await admitMutatingAdmissionPolicies([failing('f', 'Fail')], [binding('b', 'f')], attributes());
    expect(denied.denied?.message).toMatch(/^policy 'f' with binding 'b' denied request: spec\.mutations\[0\]/);
  });

  it('reinvokes an IfNeeded policy once when a later policy changed the object', async () => {
    // "first" copies the label "second" sets: only a reinvocation sees it.
    const first = compileMutatingAdmissionPolicy(
      policy('first', {
        reinvocationPolicy: 'IfNeeded',
        mutations: [
          apply(
            "has(object.metadata.labels.second) ? Object{metadata: Object.metadata{labels: {'copy': object.metadata.labels.second}}} : Object{}",
          ),
        ],
      }),
    );
    const second = compileMutatingAdmissionPolicy(
      policy('second', { mutations: [apply("Object{metadata: Object.metadata{labels: {'second': 'set'}}}")] }),
    );
    const bindings = [binding('b1', 'first'), binding('b2', 'second')];
    const result = await admitMutatingAdmissionPolicies([first, second], bindings, attributes());
    expect(labels(result.object)).toEqual({ app: 'x', second: 'set', copy: 'set' });
    expect(result.reinvocation?.evaluations.map((e) => e.invocations.length)).toEqual([1, 0]);

    const never = compileMutatingAdmissionPolicy({
      ...first.policy,
      spec: { ...(first.policy.spec as JsonObject), reinvocationPolicy: 'Never' },
    });
    const once = await admitMutatingAdmissionPolicies([never, second], bindings, attributes());
    expect(labels(once.object)).toEqual({ app: 'x', second: 'set' });
  });
});

describe('evaluateMutatingPolicyForCli', () => {
  const labelled = policy('cli', { mutations: [apply("Object{metadata: Object.metadata{labels: {'x': 'y'}}}")] });

  it('runs unbound, reports a mutation without effect as skip and keeps name and namespace', async () => {
    const result = await evaluateMutatingPolicyForCli({ policy: labelled, resource: configMap });
    expect(result.rules).toEqual([{ name: 'cli', ruleType: 'Mutation', status: 'pass', message: '' }]);
    expect(labels(result.patchedResource ?? null)).toEqual({ app: 'x', x: 'y' });
    const again = await evaluateMutatingPolicyForCli({ policy: labelled, resource: result.patchedResource! });
    expect(again.rules[0]).toMatchObject({ status: 'skip', message: 'mutation had no effect' });
  });

  it('takes the first binding whose matchResources select the resource, by namespace labels', async () => {
    const bindings = [
      binding('elsewhere', 'cli', { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }),
      binding('no-match-resources', 'cli'),
      binding('here', 'cli', { matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } } } }),
    ];
    const dev = await evaluateMutatingPolicyForCli({
      policy: labelled,
      bindings,
      resource: configMap,
      namespaceLabels: { env: 'dev' },
    });
    expect(dev.rules).toEqual([{ name: 'cli', ruleType: 'Mutation', status: 'pass', message: '', binding: 'here' }]);
    const test = await evaluateMutatingPolicyForCli({
      policy: labelled,
      bindings,
      resource: configMap,
      namespaceLabels: { env: 'test' },
    });
    expect(test.rules).toEqual([]);
    expect(test.patchedResource).toBeUndefined();
  });

  it('reports compile errors and unmet matchConditions as rules', async () => {
    const broken = await evaluateMutatingPolicyForCli({
      policy: policy('broken', { mutations: [apply('Object{')] }),
      resource: configMap,
    });
    expect(broken.rules[0]).toMatchObject({ status: 'error' });
    expect(broken.rules[0]?.message).toContain('spec.mutations[0].applyConfiguration.expression');
    const unmet = await evaluateMutatingPolicyForCli({
      policy: policy('unmet', {
        matchConditions: [{ name: 'never', expression: 'false' }],
        mutations: [apply('Object{}')],
      }),
      resource: configMap,
    });
    expect(unmet.rules[0]).toMatchObject({ status: 'skip', message: 'match conditions not met' });
  });
});

describe('mutatingAdmissionPolicyErrors', () => {
  it('names what kube refuses in a policy and a binding', async () => {
    const { mutatingAdmissionPolicyErrors, mutatingAdmissionPolicyBindingErrors } = await import('../index');
    const fields = mutatingAdmissionPolicyErrors({
      apiVersion: API,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: { reinvocationPolicy: 'Always', variables: [{ name: '1x', expression: '1' }], mutations: [] },
    }).map((e) => e.field);
    expect(fields).toEqual([
      'spec.reinvocationPolicy',
      'spec.matchConstraints',
      'spec.variables[0].name',
      'spec.mutations',
    ]);
    expect(mutatingAdmissionPolicyErrors(policy('ok', { mutations: [apply('Object{}')] }))).toEqual([]);
    expect(mutatingAdmissionPolicyBindingErrors(binding('b', '')).map((e) => e.field)).toEqual(['spec.policyName']);
  });
});
