import { describe, expect, it } from 'vitest';
import { Engine, type Policy, type PolicySpec, type Rule } from '@edict/engine';
import {
  cleanupTypes,
  generateExistingRules,
  mutateExistingOnUpdateRules,
  removedRules,
  retargetedRules,
} from './rule-changes';

const engine = new Engine();
const namespaces = { any: [{ resources: { kinds: ['Namespace'] } }] };

const dataRule = (name: string, generate: Partial<NonNullable<Rule['generate']>> = {}): Rule => ({
  name,
  match: namespaces,
  generate: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'settings',
    namespace: '{{request.object.metadata.name}}',
    data: { data: { a: '1' } },
    ...generate,
  },
});

const mutateRule = (name: string, onPolicyUpdate?: boolean): Rule => ({
  name,
  match: namespaces,
  mutate: {
    ...(onPolicyUpdate === undefined ? {} : { mutateExistingOnPolicyUpdate: onPolicyUpdate }),
    targets: [{ apiVersion: 'v1', kind: 'Secret', namespace: '{{request.object.metadata.name}}' }],
    patchStrategicMerge: { metadata: { labels: { seen: 'yes' } } },
  },
});

const compile = (rules: Rule[], spec: Partial<PolicySpec> = {}) =>
  engine.compile({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { ...spec, rules },
  } as Policy);

const names = (rules: readonly Rule[]) => rules.map((rule) => rule.name);

describe('rules a policy change acts on', () => {
  it('takes generateExisting from the rule, falling back to the deprecated policy field', () => {
    const rules = [
      dataRule('own', { generateExisting: true }),
      dataRule('off', { generateExisting: false }),
      dataRule('inherit'),
    ];
    expect(names(generateExistingRules(compile(rules)))).toEqual(['own']);
    expect(names(generateExistingRules(compile(rules, { generateExisting: true })))).toEqual(['own', 'inherit']);
  });

  it('takes mutateExistingOnPolicyUpdate from the rule, falling back to the policy, for rules with targets only', () => {
    const standard: Rule = { name: 'standard', match: namespaces, mutate: { patchStrategicMerge: { metadata: {} } } };
    const rules = [mutateRule('own', true), mutateRule('off', false), mutateRule('inherit'), standard];
    expect(names(mutateExistingOnUpdateRules(compile(rules)))).toEqual(['own']);
    expect(names(mutateExistingOnUpdateRules(compile(rules, { mutateExistingOnPolicyUpdate: true })))).toEqual([
      'own',
      'inherit',
    ]);
  });

  it('cleans up after synchronized data rules only, not clones, unsynchronized or orphaning ones', () => {
    const configMap = [{ apiVersion: 'v1', kind: 'ConfigMap' }];
    expect(cleanupTypes(dataRule('sync', { synchronize: true }))).toEqual(configMap);
    expect(cleanupTypes(dataRule('nosync'))).toEqual([]);
    expect(cleanupTypes(dataRule('orphan', { synchronize: true, orphanDownstreamOnPolicyDelete: true }))).toEqual([]);
    const clone = dataRule('clone', {
      synchronize: true,
      data: undefined,
      clone: { namespace: 'default', name: 'settings' },
    });
    expect(cleanupTypes(clone)).toEqual([]);
    const foreach = dataRule('foreach', {
      synchronize: true,
      kind: undefined,
      apiVersion: undefined,
      data: undefined,
      foreach: [{ list: 'request.object.spec.items', apiVersion: 'v1', kind: 'Secret', data: { data: {} } }],
    });
    expect(cleanupTypes(foreach)).toEqual([{ apiVersion: 'v1', kind: 'Secret' }]);
    // A kind given by a variable names no type to look in.
    expect(cleanupTypes(dataRule('variable', { synchronize: true, kind: '{{kind}}' }))).toEqual([]);
  });

  it('finds the rules an update removed and the kept ones whose target moved', () => {
    const before = compile([
      dataRule('kept'),
      dataRule('moved'),
      dataRule('removed'),
      dataRule('cloned', { data: undefined, clone: { namespace: 'a', name: 'x' } }),
    ]);
    const after = compile([
      dataRule('kept', { data: { data: { a: 'changed' } } }),
      dataRule('moved', { name: 'settings-new' }),
      dataRule('cloned', { data: undefined, clone: { namespace: 'b', name: 'x' } }),
    ]);
    expect(names(removedRules(before, after))).toEqual(['removed']);
    expect(retargetedRules(before, after)).toEqual([
      { rule: 'moved', types: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      { rule: 'cloned', types: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
    ]);
  });
});
