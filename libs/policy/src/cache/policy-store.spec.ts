import { describe, expect, it } from 'vitest';
import type { Policy } from '@edict/engine';
import { exceptionOf, labelRule, policyOf } from '../testing';
import { PolicyStore, policyKey } from './policy-store';
import type { PolicyQuery } from './types';

const pod = (extra: Partial<PolicyQuery> = {}): PolicyQuery => ({
  kind: 'Pod',
  group: '',
  version: 'v1',
  operation: 'CREATE',
  namespace: 'default',
  type: 'validate',
  ...extra,
});
const names = (list: readonly { key: string }[]) => list.map((p) => p.key);
const withVersion = (policy: Policy, resourceVersion: string): Policy => ({
  ...policy,
  metadata: { ...policy.metadata, resourceVersion },
});

describe('PolicyStore and PolicySnapshot', () => {
  it('finds policies by kind, including autogen kinds', () => {
    const store = new PolicyStore();
    store.upsertPolicy(policyOf('pods', [labelRule('r', ['Pod'])]));
    store.upsertPolicy(policyOf('services', [labelRule('r', ['Service'])]));
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod()))).toEqual(['pods']);
    expect(names(snapshot.policiesFor(pod({ kind: 'Service' })))).toEqual(['services']);
    // Autogen copies the Pod rule to the controllers.
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'apps' })))).toEqual(['pods']);
    expect(names(snapshot.policiesFor(pod({ kind: 'CronJob', group: 'batch' })))).toEqual(['pods']);
    expect(names(snapshot.policiesFor(pod({ kind: 'ConfigMap' })))).toEqual([]);
  });

  it('tells which kinds the policies name literally (metric labels), not through wildcards', () => {
    const store = new PolicyStore();
    store.upsertPolicy(policyOf('pods', [labelRule('r', ['Pod', 'apps/v1/Deployment', 'Pod/exec'])]));
    store.upsertPolicy(policyOf('config-star', [labelRule('r', ['Config*'])], { background: false }));
    const snapshot = store.snapshot();
    expect(['Pod', 'Deployment'].map((kind) => snapshot.namesKind(kind))).toEqual([true, true]);
    expect(['ConfigMap', 'Config*', 'Kind1', ''].map((kind) => snapshot.namesKind(kind))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('honours wildcards, group/version selectors and subresources', () => {
    const store = new PolicyStore();
    store.upsertPolicy(policyOf('all', [labelRule('r', ['*'])], { background: false }));
    store.upsertPolicy(policyOf('config-star', [labelRule('r', ['Config*'])], { background: false }));
    store.upsertPolicy(policyOf('apps-deploy', [labelRule('r', ['apps/v1/Deployment'])], { failurePolicy: 'Ignore' }));
    store.upsertPolicy(policyOf('scale', [labelRule('r', ['Deployment/scale'])]));
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod({ kind: 'ConfigMap' })))).toEqual(['all', 'config-star']);
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'apps' })))).toEqual(['all', 'apps-deploy']);
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'extensions', version: 'v1beta1' })))).toEqual([
      'all',
    ]);
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'apps', subresource: 'scale' })))).toContain(
      'scale',
    );
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'apps', failurePolicy: 'Ignore' })))).toEqual([
      'apps-deploy',
    ]);
    expect(names(snapshot.policiesFor(pod({ kind: 'Deployment', group: 'apps', failurePolicy: 'Fail' })))).toEqual([
      'all',
    ]);
  });

  it('serves a policy on the path of its webhookConfiguration failure policy', () => {
    const store = new PolicyStore();
    store.upsertPolicy(
      policyOf('ignored', [labelRule('r', ['Pod'])], { webhookConfiguration: { failurePolicy: 'Ignore' } }),
    );
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod({ failurePolicy: 'Ignore' })))).toEqual(['ignored']);
    expect(names(snapshot.policiesFor(pod({ failurePolicy: 'Fail' })))).toEqual([]);
  });

  it('keeps rule types apart and skips policies with admission disabled', () => {
    const store = new PolicyStore();
    store.upsertPolicy(policyOf('v', [labelRule('r', ['Pod'])]));
    store.upsertPolicy(
      policyOf('m', [
        {
          name: 'add',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
        },
      ]),
    );
    store.upsertPolicy(policyOf('background-only', [labelRule('r', ['Pod'])], { admission: false }));
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod()))).toEqual(['v']);
    expect(names(snapshot.policiesFor(pod({ type: 'mutate' })))).toEqual(['m']);
    expect(names(snapshot.policiesFor(pod({ type: 'generate' })))).toEqual([]);
    expect(snapshot.policies.get('m')?.ruleTypes.has('mutate')).toBe(true);
  });

  it('filters on operations the rules are limited to', () => {
    const store = new PolicyStore();
    store.upsertPolicy(
      policyOf('on-delete', [
        { ...labelRule('r', ['Pod']), match: { any: [{ resources: { kinds: ['Pod'], operations: ['DELETE'] } }] } },
      ]),
    );
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod()))).toEqual([]);
    expect(names(snapshot.policiesFor(pod({ operation: 'DELETE' })))).toEqual(['on-delete']);
  });

  it('serves namespaced Policies only in their namespace, in key order', () => {
    const store = new PolicyStore();
    store.upsertPolicy(policyOf('z-cluster', [labelRule('r', ['Pod'])]));
    store.upsertPolicy(policyOf('local', [labelRule('r', ['Pod'])], {}, 'team-a'));
    store.upsertPolicy(policyOf('a-cluster', [labelRule('r', ['Pod'])]));
    const snapshot = store.snapshot();
    expect(names(snapshot.policiesFor(pod({ namespace: 'team-a' })))).toEqual([
      'a-cluster',
      'team-a/local',
      'z-cluster',
    ]);
    expect(names(snapshot.policiesFor(pod({ namespace: 'team-b' })))).toEqual(['a-cluster', 'z-cluster']);
    expect(names(snapshot.policiesFor(pod({ kind: 'Namespace', namespace: '' })))).toEqual([]);
    expect(snapshot.policies.get('team-a/local')?.compiled.key).toBe('team-a/local');
  });

  it('swaps snapshots: a held snapshot never changes; unchanged reads return the same one', () => {
    const store = new PolicyStore();
    store.upsertPolicy(withVersion(policyOf('p', [labelRule('r', ['Pod'])]), '1'));
    const before = store.snapshot();
    expect(store.snapshot()).toBe(before);
    const answer = before.policiesFor(pod());
    expect(before.policiesFor(pod())).toBe(answer); // memoised
    expect(Object.isFrozen(answer)).toBe(true);

    store.upsertPolicy(withVersion(policyOf('p', [labelRule('r', ['Service'])]), '2'));
    store.removePolicy(policyOf('nothing', []));
    const after = store.snapshot();
    expect(after).not.toBe(before);
    expect(after.generation).toBeGreaterThan(before.generation);
    expect(names(before.policiesFor(pod()))).toEqual(['p']);
    expect(names(after.policiesFor(pod()))).toEqual([]);
    expect(names(after.policiesFor(pod({ kind: 'Service' })))).toEqual(['p']);

    // The same resourceVersion again is not recompiled.
    expect(store.upsertPolicy(withVersion(policyOf('p', [labelRule('r', ['Pod'])]), '2')).status).toBe('unchanged');
    expect(store.snapshot()).toBe(after);
    store.removePolicy(policyOf('p', []));
    expect(store.snapshot().policies.size).toBe(0);
  });

  it('validates its policies again when the cluster-scoped custom kinds change', () => {
    const store = new PolicyStore();
    const generateRole: Policy = policyOf('roles', [
      {
        name: 'r',
        match: { any: [{ resources: { kinds: ['Namespace'] } }] },
        generate: { apiVersion: 'iam.example.io/v1', kind: 'Role', name: 'admin', data: {} },
      },
    ]);
    expect(store.upsertPolicy(generateRole).status).toBe('invalid');
    store.setClusterScopedKinds(['Role', 'iam.example.io/v1/Role']);
    expect(names([...store.snapshot().policies.values()])).toEqual(['roles']);
    store.setClusterScopedKinds([]);
    expect(store.snapshot().invalid.has('roles')).toBe(true);
  });

  it('keeps invalid policies out, with their problems, and lets a fix bring them back', () => {
    const store = new PolicyStore();
    const broken = policyOf('broken', [{ name: 'no-type', match: { any: [{ resources: { kinds: ['Pod'] } }] } }]);
    const result = store.upsertPolicy(withVersion(broken, '1'));
    expect(result.status).toBe('invalid');
    const snapshot = store.snapshot();
    expect(snapshot.policies.has('broken')).toBe(false);
    expect(snapshot.invalid.get('broken')?.problems.length).toBeGreaterThan(0);
    expect(snapshot.invalid.get('broken')?.problems[0]?.path).toMatch(/^spec\.rules\[0\]/);
    expect(names(snapshot.policiesFor(pod()))).toEqual([]);

    store.upsertPolicy(withVersion(policyOf('broken', [labelRule('r', ['Pod'])]), '2'));
    expect(store.snapshot().invalid.size).toBe(0);
    expect(names(store.snapshot().policiesFor(pod()))).toEqual(['broken']);
  });

  it('treats a policy without rules as invalid rather than crashing', () => {
    const store = new PolicyStore();
    const result = store.upsertPolicy({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'empty' },
      spec: {},
    } as never);
    expect(result.status).toBe('invalid');
    expect(store.snapshot().invalid.get('empty')?.problems[0]?.message).toMatch(/rules/);
  });

  it('uses exceptions only from the configured namespaces (wildcards)', () => {
    const store = new PolicyStore({ exceptionNamespaces: ['kyverno', 'team-*'] });
    store.upsertException(exceptionOf('a', 'kyverno', 'p', ['r']));
    store.upsertException(exceptionOf('b', 'team-x', 'p', ['r']));
    const outside = store.upsertException(exceptionOf('c', 'default', 'p', ['r']));
    expect(outside.used).toBe(false);
    expect(outside.problems.map((d) => d.message)).toContain(
      'PolicyException resource namespace must match the defined namespace.',
    );
    const snapshot = store.snapshot();
    expect(snapshot.exceptions.map((e) => e.metadata.name).sort()).toEqual(['a', 'b']);
    expect(snapshot.allExceptions.size).toBe(3);

    store.removeException(exceptionOf('a', 'kyverno', 'p', ['r']));
    expect(store.snapshot().exceptions.map((e) => e.metadata.name)).toEqual(['b']);
    expect(snapshot.exceptions).toHaveLength(2); // the old snapshot is untouched
  });

  it('uses no exception until namespaces are named, then re-judges the stored ones', () => {
    const store = new PolicyStore();
    const stored = store.upsertException(exceptionOf('a', 'anywhere', 'p', ['r']));
    expect(stored.used).toBe(false);
    expect(stored.problems.map((p) => p.message)).toEqual([
      'PolicyException resources would not be processed until it is enabled.',
    ]);
    expect(store.snapshot().exceptions).toEqual([]);

    store.setExceptionNamespaces(['any*']);
    expect(store.snapshot().exceptions.map((e) => e.metadata.name)).toEqual(['a']);
    store.setExceptionNamespaces(['*']);
    expect(store.snapshot().exceptions).toHaveLength(1);
    store.setExceptionNamespaces(['kyverno']);
    expect(store.snapshot().exceptions).toEqual([]);
  });

  it('keys policies as the engine does', () => {
    expect(policyKey(policyOf('p', []))).toBe('p');
    expect(policyKey(policyOf('p', [], {}, 'ns'))).toBe('ns/p');
  });
});
