import { describe, expect, it } from 'vitest';
import { Engine, type Policy } from '@edict/engine';
import type { CachedPolicy, InvalidPolicy } from '@edict/policy';
import { PolicyChangeTracker } from './policy-changes';

const engine = new Engine();

function cached(
  name: string,
  labels: Record<string, string>,
  extra: { uid?: string; status?: unknown } = {},
): CachedPolicy {
  const source = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, uid: extra.uid ?? `${name}-uid` },
    spec: {
      rules: [
        {
          name: 'label',
          match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels } } },
        },
      ],
    },
    ...(extra.status ? { status: extra.status } : {}),
  } as Policy;
  return {
    key: name,
    kind: 'ClusterPolicy',
    name,
    uid: source.metadata.uid,
    compiled: engine.compile(source),
    failurePolicy: 'Fail',
    admission: true,
    ruleTypes: new Set(['mutate']),
    warnings: [],
    source,
  };
}

const snapshot = (policies: CachedPolicy[], invalid: string[] = []) => ({
  policies: new Map(policies.map((policy) => [policy.key, policy])),
  invalid: new Map(invalid.map((key) => [key, { key } as InvalidPolicy])),
});

const summary = (changes: ReturnType<PolicyChangeTracker['observe']>) =>
  changes.map((change) => `${change.type} ${(change.type === 'deleted' ? change.previous : change.policy).key}`);

describe('PolicyChangeTracker', () => {
  it('reports every policy as created at the first look, then only spec changes and deletions', () => {
    const tracker = new PolicyChangeTracker();
    expect(summary(tracker.observe(snapshot([cached('a', { x: '1' }), cached('b', { y: '1' })])))).toEqual([
      'created a',
      'created b',
    ]);
    // A status write is no change; a spec change is an update carrying the version before.
    const changes = tracker.observe(
      snapshot([cached('a', { x: '1' }, { status: { ready: true } }), cached('b', { y: '2' })]),
    );
    expect(summary(changes)).toEqual(['updated b']);
    expect(changes[0]).toMatchObject({
      previous: {
        source: { spec: { rules: [{ mutate: { patchStrategicMerge: { metadata: { labels: { y: '1' } } } } }] } },
      },
    });
    expect(summary(tracker.observe(snapshot([cached('b', { y: '2' })])))).toEqual(['deleted a']);
  });

  it('does not take a policy that turned invalid for deleted, and compares with its last valid version', () => {
    const tracker = new PolicyChangeTracker();
    tracker.observe(snapshot([cached('a', { x: '1' })]));
    expect(tracker.observe(snapshot([], ['a']))).toEqual([]);
    expect(tracker.observe(snapshot([cached('a', { x: '1' })]))).toEqual([]);
    tracker.observe(snapshot([], ['a']));
    expect(summary(tracker.observe(snapshot([cached('a', { x: '2' })])))).toEqual(['updated a']);
  });

  it('reports a policy deleted and created again between two looks as both', () => {
    const tracker = new PolicyChangeTracker();
    tracker.observe(snapshot([cached('a', { x: '1' })]));
    expect(summary(tracker.observe(snapshot([cached('a', { x: '1' }, { uid: 'other' })])))).toEqual([
      'deleted a',
      'created a',
    ]);
  });
});
