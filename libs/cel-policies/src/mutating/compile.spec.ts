import { describe, expect, it } from 'vitest';
import { matching, mutatingPolicy } from '../testing';
import { compileMutatingPolicy, mutatingPolicyErrors } from './compile';
import { MutatingPolicyError } from './policy-error';
import type { MutatingPolicySpec } from './types';

const ADD_LABEL = 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}';

const base: MutatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: ADD_LABEL } }],
};

const errorsOf = (spec: MutatingPolicySpec) => mutatingPolicyErrors(mutatingPolicy('p', spec));

describe('mutatingPolicyErrors', () => {
  it('is empty for a valid policy with both patch types, variables and match conditions', () => {
    expect(
      errorsOf({
        ...base,
        variables: [{ name: 'key', expression: '"managed"' }],
        matchConditions: [{ name: 'named', expression: 'object.metadata.name != "" && variables.key != ""' }],
        mutations: [
          ...(base.mutations ?? []),
          {
            patchType: 'JSONPatch',
            jsonPatch: {
              expression:
                '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey(variables.key), value: "true"}]',
            },
          },
        ],
      }),
    ).toEqual([]);
  });

  it('names the field of a bad mutation expression and of an undeclared variable', () => {
    const errors = errorsOf({
      ...base,
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{' } },
        { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "remove", path: variables.missing}]' } },
      ],
    });
    expect(errors.map((error) => error.field)).toEqual([
      'spec.mutations[0].applyConfiguration.expression',
      'spec.mutations[1].jsonPatch.expression',
    ]);
    expect(errors[1]?.message).toContain("undefined field 'missing'");
  });

  it('refuses results of the wrong type', () => {
    const errors = errorsOf({
      ...base,
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: '"text"' } }],
    });
    expect(errors.map((error) => error.field)).toEqual(['spec.mutations[0].applyConfiguration.expression']);
  });

  it('checks the schema: patch types, missing bodies, policies, match constraints', () => {
    const errors = errorsOf({
      failurePolicy: 'Sometimes' as never,
      reinvocationPolicy: 'Always' as never,
      mutations: [
        { patchType: 'StrategicMerge' },
        { patchType: 'JSONPatch' },
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: ADD_LABEL },
          jsonPatch: { expression: '[]' },
        },
      ],
    });
    expect(errors.map((error) => error.field).sort()).toEqual([
      'spec.failurePolicy',
      'spec.matchConstraints',
      'spec.mutations[0].patchType',
      'spec.mutations[1].jsonPatch',
      'spec.mutations[2].jsonPatch',
      'spec.reinvocationPolicy',
    ]);
  });

  it('refuses a policy with neither admission nor mutateExisting evaluation', () => {
    const neither = { admission: { enabled: false }, mutateExisting: { enabled: false } };
    expect(errorsOf({ ...base, evaluation: neither }).map((e) => e.field)).toEqual(['spec.evaluation']);
    expect(errorsOf({ ...base, evaluation: { admission: { enabled: false } } }).map((e) => e.field)).toEqual([
      'spec.evaluation',
    ]);
    expect(errorsOf({ ...base, evaluation: { ...neither, mutateExisting: { enabled: true } } })).toEqual([]);
  });

  it('refuses the JSON evaluation mode it does not run, and another kind', () => {
    expect(errorsOf({ ...base, evaluation: { mode: 'JSON' } }).map((e) => e.field)).toEqual(['spec.evaluation.mode']);
    expect(mutatingPolicyErrors({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })[0]?.field).toBe(
      'kind',
    );
  });

  it('compiles the target selector expression', () => {
    const errors = errorsOf({
      ...base,
      evaluation: { mutateExisting: { enabled: true } },
      targetMatchConstraints: { expression: 'resource.Get(' },
    });
    expect(errors.map((error) => error.field)).toEqual(['spec.targetMatchConstraints.expression']);
  });
});

describe('compileMutatingPolicy', () => {
  it('reads the policy settings with their defaults', () => {
    const compiled = compileMutatingPolicy(mutatingPolicy('defaults', base));
    expect(compiled).toMatchObject({
      name: 'defaults',
      kind: 'MutatingPolicy',
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      admission: true,
      background: true,
      mutateExisting: false,
    });
    expect(compiled.namespace).toBeUndefined();
    const namespaced = compileMutatingPolicy(
      mutatingPolicy('n', { ...base, reinvocationPolicy: 'IfNeeded', failurePolicy: 'Ignore' }, 'team-a'),
    );
    expect(namespaced).toMatchObject({ namespace: 'team-a', reinvocationPolicy: 'IfNeeded', failurePolicy: 'Ignore' });
  });

  it('throws a MutatingPolicyError listing every problem', () => {
    expect(() => compileMutatingPolicy(mutatingPolicy('bad', { mutations: [] }))).toThrow(MutatingPolicyError);
  });

  it('generates pod-controller configs, wrapping an Object{} in the template and rewriting match conditions', () => {
    const compiled = compileMutatingPolicy(
      mutatingPolicy('autogen', {
        ...base,
        matchConditions: [{ name: 'has-labels', expression: 'has(object.metadata.labels)' }],
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{spec: Object.spec{dnsPolicy: "None"}}' },
          },
        ],
      }),
    );
    expect(compiled.autogen.map((config) => config.name)).toEqual(['cronjobs', 'defaults']);
    const defaults = compiled.autogen[1]!.spec;
    expect(defaults.mutations?.[0]?.applyConfiguration?.expression).toBe(
      'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{dnsPolicy: "None"}}}}',
    );
    expect(defaults.matchConditions?.[0]?.expression).toBe('has(object.spec.template.metadata.labels)');
    expect(compiled.matchConstraints.resourceRules?.flatMap((rule) => rule.resources)).toEqual([
      'pods',
      'cronjobs',
      'daemonsets',
      'deployments',
      'replicasets',
      'statefulsets',
      'jobs',
    ]);
    expect(Object.keys((compiled.autogenStatus.configs ?? {}) as object)).toEqual(['cronjobs', 'defaults']);
  });
});
