import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { PolicyCache } from '../policy-cache';
import { validatePolicyOptions } from '../policy.options';
import { fakeCelPolicyFeeds, fakePolicyFeeds } from '../testing';
import { CelPolicyCache } from './cel-policy-cache';

const pods = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };
const vpol = (name: string, expression: string, kind = 'ValidatingPolicy', namespace?: string): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind,
  metadata: { name, uid: `u-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
  spec: { matchConstraints: pods, validations: [{ expression }] },
});
const polex = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'PolicyException',
  metadata: { name, namespace, uid: `u-${namespace}-${name}`, resourceVersion: '1' },
  spec: { policyRefs: [{ name: 'p', kind: 'ValidatingPolicy' }] },
});

function caches(exceptionNamespaces: string[] = []) {
  const classic = new PolicyCache(validatePolicyOptions({ exceptionNamespaces }), fakePolicyFeeds());
  const feeds = fakeCelPolicyFeeds();
  const cache = new CelPolicyCache(feeds, classic);
  cache.start();
  return { classic, feeds, cache };
}

describe('CelPolicyCache', () => {
  it('serves the compiled policies of its three feeds and follows updates and deletions', async () => {
    const { feeds, cache } = caches();
    expect(
      Object.values(feeds)
        .filter((f) => typeof f === 'object')
        .every((f) => f.started),
    ).toBe(true);
    feeds.validatingPolicies.add(vpol('good', 'true'));
    feeds.validatingPolicies.add(vpol('broken', 'objekt == 1'));
    feeds.namespacedValidatingPolicies.add(vpol('local', 'true', 'NamespacedValidatingPolicy', 'team'));
    expect(cache.validatingPolicies().map((p) => `${p.kind}/${p.name}`)).toEqual([
      'NamespacedValidatingPolicy/local',
      'ValidatingPolicy/good',
    ]);
    expect(cache.policyEntries().find((e) => e.name === 'broken')!.errors[0]!.field).toBe(
      'spec.validations[0].expression',
    );
    feeds.validatingPolicies.delete(vpol('good', 'true'));
    expect(cache.validatingPolicies().map((p) => p.name)).toEqual(['local']);
    expect(cache.hasSynced()).toBe(false);
    feeds.markSynced();
    expect(cache.hasSynced()).toBe(true);
    await cache.onModuleDestroy();
    expect(feeds.exceptions.stopped).toBe(true);
  });

  it("honours CEL exceptions from the classic cache's exception namespaces, as they change", () => {
    const { classic, feeds, cache } = caches(['kyverno']);
    feeds.exceptions.add(polex('a', 'kyverno'));
    feeds.exceptions.add(polex('b', 'team'));
    expect(cache.policyExceptions().map((e) => e.name)).toEqual(['a']);
    classic.setExceptionNamespaces(['*']);
    expect(cache.policyExceptions().map((e) => e.name)).toEqual(['a', 'b']);
    classic.setExceptionNamespaces([]);
    expect(cache.policyExceptions()).toEqual([]);
    expect(cache.exceptionEntries()).toHaveLength(2);
  });

  it('tells its listeners once per burst of changes', async () => {
    const { feeds, cache } = caches();
    let heard = 0;
    cache.onChange(() => (heard += 1));
    feeds.validatingPolicies.add(vpol('a', 'true'));
    feeds.validatingPolicies.add(vpol('b', 'true'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toBe(1);
  });

  it('serves compiled MutatingPolicies, GeneratingPolicies and DeletingPolicies from their feeds, apart from the validating ones', () => {
    const classic = new PolicyCache(validatePolicyOptions({}), fakePolicyFeeds());
    const feeds = fakeCelPolicyFeeds({ mutatingAndGenerating: true });
    const cache = new CelPolicyCache(feeds, classic);
    cache.start();
    expect([feeds.mutatingPolicies!.started, feeds.generatingPolicies!.started]).toEqual([true, true]);
    const mutations = [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }];
    const mpol = (name: string, kind: string, namespace?: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind,
      metadata: { name, uid: `m-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
      spec: { matchConstraints: pods, mutations },
    });
    const gpol = (name: string, kind: string, expression: string, namespace?: string): KubeObject => ({
      apiVersion: 'policies.kyverno.io/v1',
      kind,
      metadata: { name, uid: `g-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
      spec: { matchConstraints: pods, generate: [{ expression }] },
    });
    feeds.mutatingPolicies!.add(mpol('m', 'MutatingPolicy'));
    feeds.namespacedMutatingPolicies!.add(mpol('n', 'NamespacedMutatingPolicy', 'team'));
    feeds.generatingPolicies!.add(gpol('g', 'GeneratingPolicy', 'generator.Apply("team", [])'));
    feeds.namespacedGeneratingPolicies!.add(gpol('h', 'NamespacedGeneratingPolicy', 'generator.Apply([])', 'team'));
    feeds.generatingPolicies!.add(gpol('bad', 'GeneratingPolicy', 'generator.Apply('));
    expect(cache.mutatingPolicies().map((p) => `${p.kind}/${p.name}`)).toEqual([
      'MutatingPolicy/m',
      'NamespacedMutatingPolicy/n',
    ]);
    expect(cache.generatingPolicies().map((p) => `${p.kind}/${p.name}`)).toEqual([
      'GeneratingPolicy/g',
      'NamespacedGeneratingPolicy/h',
    ]);
    expect(cache.validatingPolicies()).toEqual([]);
    expect(cache.policyEntries().find((e) => e.name === 'bad')!.errors[0]!.field).toBe('spec.generate[0].expression');
    feeds.deletingPolicies!.add({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'DeletingPolicy',
      metadata: { name: 'd', uid: 'd-d', generation: 1 },
      spec: { matchConstraints: pods, schedule: '@daily' },
    });
    expect(cache.deletingPolicies().map((p) => `${p.kind}/${p.name}/${p.schedule}`)).toEqual([
      'DeletingPolicy/d/@daily',
    ]);
    feeds.mutatingPolicies!.delete(mpol('m', 'MutatingPolicy'));
    expect(cache.mutatingPolicies().map((p) => p.name)).toEqual(['n']);
    expect(cache.hasSynced()).toBe(false);
    feeds.markSynced();
    expect(cache.hasSynced()).toBe(true);
  });

  it('serves a ValidatingPolicy that says Fail as failurePolicy Ignore under forceFailurePolicyIgnore, and as Fail without it', () => {
    const classic = new PolicyCache(validatePolicyOptions({ forceFailurePolicyIgnore: true }), fakePolicyFeeds());
    const feeds = fakeCelPolicyFeeds();
    const cache = new CelPolicyCache(feeds, classic);
    cache.start();
    const strict = vpol('strict', 'true') as KubeObject & { spec: Record<string, unknown> };
    feeds.validatingPolicies.add({ ...strict, spec: { ...strict.spec, failurePolicy: 'Fail' } });
    expect(cache.validatingPolicies().map((p) => [p.name, p.failurePolicy])).toEqual([['strict', 'Ignore']]);
    const plain = caches();
    plain.feeds.validatingPolicies.add(vpol('strict', 'true'));
    expect(plain.cache.validatingPolicies()[0]?.failurePolicy).toBe('Fail');
  });
});
