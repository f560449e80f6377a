import { describe, expect, it } from 'vitest';
import { PolicyCache } from './policy-cache';
import { validatePolicyOptions } from './policy.options';
import { exceptionOf, fakePolicyFeeds, labelRule, policyOf } from './testing';

const podQuery = {
  kind: 'Pod',
  group: '',
  version: 'v1',
  operation: 'CREATE',
  namespace: 'default',
  type: 'validate',
} as const;

function setup(options = {}) {
  const feeds = fakePolicyFeeds();
  const cache = new PolicyCache(validatePolicyOptions(options), feeds);
  cache.onModuleInit();
  return { feeds, cache };
}

describe('PolicyCache with fake feeds', () => {
  it('starts the feeds and reports sync only when all three synced', async () => {
    const { feeds, cache } = setup();
    expect(feeds.clusterPolicies.started && feeds.policies.started && feeds.exceptions.started).toBe(true);
    expect(cache.hasSynced()).toBe(false);
    const waiting = cache.waitForSync();
    feeds.clusterPolicies.markSynced();
    expect(cache.hasSynced()).toBe(false);
    feeds.markSynced();
    await waiting;
    expect(cache.hasSynced()).toBe(true);
    expect(cache.stats().synced).toBe(true);
    await cache.onModuleDestroy();
    expect(feeds.exceptions.stopped).toBe(true);
  });

  it('follows adds, updates and deletes of both policy kinds and exceptions', () => {
    const { feeds, cache } = setup({ exceptionNamespaces: ['kyverno'] });
    const cluster = policyOf('c', [labelRule('r', ['Pod'])]);
    const local = policyOf('l', [labelRule('r', ['Pod'])], {}, 'default');
    feeds.clusterPolicies.add(cluster);
    feeds.policies.add(local);
    const held = cache.snapshot();
    expect(cache.policiesFor(podQuery).map((p) => p.key)).toEqual(['c', 'default/l']);

    feeds.clusterPolicies.update(policyOf('c', [labelRule('r', ['Service'])]), cluster);
    expect(cache.policiesFor(podQuery).map((p) => p.key)).toEqual(['default/l']);
    expect(held.policiesFor(podQuery).map((p) => p.key)).toEqual(['c', 'default/l']);
    feeds.policies.delete(local);
    expect(cache.policiesFor(podQuery)).toEqual([]);

    feeds.exceptions.add(exceptionOf('x', 'kyverno', 'c', ['r']));
    feeds.exceptions.add(exceptionOf('y', 'default', 'c', ['r']));
    expect(cache.exceptions().map((e) => e.metadata.name)).toEqual(['x']);
    expect(cache.exceptionEntries()).toHaveLength(2);
    feeds.exceptions.delete(exceptionOf('x', 'kyverno', 'c', ['r']));
    expect(cache.exceptions()).toEqual([]);

    const stats = cache.stats();
    expect(stats).toMatchObject({
      policies: 1,
      clusterPolicies: 1,
      namespacedPolicies: 0,
      exceptions: 0,
      ignoredExceptions: 1,
    });
    expect(stats.byType.validate).toBe(1);
  });

  it('reports invalid policies and tells listeners once per burst', async () => {
    const { feeds, cache } = setup();
    const heard: number[] = [];
    const off = cache.onChange((snapshot) => heard.push(snapshot.generation));
    feeds.clusterPolicies.add(policyOf('bad', [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] } }]));
    feeds.clusterPolicies.add(policyOf('good', [labelRule('r', ['Pod'])]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([2]);
    expect(cache.invalidPolicies().map((p) => p.key)).toEqual(['bad']);
    expect(cache.policies().map((p) => p.key)).toEqual(['good']);
    expect(cache.stats().invalidPolicies).toBe(1);
    off();
    feeds.clusterPolicies.delete(policyOf('bad', []));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([2]);
    expect(cache.invalidPolicies()).toEqual([]);
  });

  it('takes every policy in as failurePolicy Ignore under forceFailurePolicyIgnore (Kyverno --forceFailurePolicyIgnore)', () => {
    const { feeds, cache } = setup({ forceFailurePolicyIgnore: true });
    const strict = policyOf('strict', [labelRule('r', ['Pod'])]);
    feeds.clusterPolicies.add({ ...strict, spec: { ...strict.spec, failurePolicy: 'Fail' } });
    const cached = cache.snapshot().policies.get('strict');
    expect(cached?.failurePolicy).toBe('Ignore');
    expect(cached?.compiled.policy.spec.failurePolicy).toBe('Ignore');
    const plain = setup();
    plain.feeds.clusterPolicies.add({ ...strict, spec: { ...strict.spec, failurePolicy: 'Fail' } });
    expect(plain.cache.snapshot().policies.get('strict')?.failurePolicy).toBe('Fail');
  });
});
