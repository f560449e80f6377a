import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { InformerFactory, KubeHttpClient, KubeResources } from '@edict/kube';
import { eventually, kubeConfigForUrl } from '@edict/kube/testing';
import { createPolicyFeeds } from './informers/policy-feeds';
import { PolicyCache } from './policy-cache';
import { validatePolicyOptions } from './policy.options';
import { exceptionOf, installPolicyCrds, labelRule, policyOf } from './testing';

const FAST = { watchTimeoutSeconds: 5, retryInitialMs: 20, retryMaxMs: 200, resyncIntervalMs: 0 };
const podIn = (namespace: string) =>
  ({ kind: 'Pod', group: '', version: 'v1', operation: 'CREATE', namespace, type: 'validate' }) as const;
const keys = (cache: PolicyCache, namespace = 'default') => cache.policiesFor(podIn(namespace)).map((p) => p.key);

describe('PolicyCache against the in-memory API server', () => {
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50 });
  let resources: KubeResources;
  let factory: InformerFactory;
  let cache: PolicyCache;

  beforeAll(async () => {
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    installPolicyCrds(server);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyverno' } });
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
    // One policy exists before the cache starts: it must arrive with the first list.
    await resources.create(policyOf('preexisting', [labelRule('r', ['Pod'])]) as unknown as JsonObject);
    factory = new InformerFactory(resources);
    const options = validatePolicyOptions({ ...FAST, exceptionNamespaces: ['kyverno'] });
    cache = new PolicyCache(options, createPolicyFeeds(factory, options));
    cache.onModuleInit();
    await cache.waitForSync(5_000);
  });
  afterAll(async () => {
    await cache.onModuleDestroy();
    await factory.onModuleDestroy();
    await server.stop();
  });

  it('serves the CRDs with Kyverno names', async () => {
    for (const [apiVersion, kind, plural] of [
      ['kyverno.io/v1', 'ClusterPolicy', 'clusterpolicies'],
      ['kyverno.io/v2beta1', 'ClusterPolicy', 'clusterpolicies'],
      ['kyverno.io/v1', 'Policy', 'policies'],
      ['kyverno.io/v2', 'PolicyException', 'policyexceptions'],
      ['kyverno.io/v2beta1', 'PolicyException', 'policyexceptions'],
      ['kyverno.io/v2', 'UpdateRequest', 'updaterequests'],
      ['reports.kyverno.io/v1', 'EphemeralReport', 'ephemeralreports'],
      ['reports.kyverno.io/v1', 'ClusterEphemeralReport', 'clusterephemeralreports'],
      ['wgpolicyk8s.io/v1alpha2', 'PolicyReport', 'policyreports'],
      ['wgpolicyk8s.io/v1alpha2', 'ClusterPolicyReport', 'clusterpolicyreports'],
    ] as const) {
      expect((await resources.resource(apiVersion, kind)).name).toBe(plural);
    }
    const cpol = await resources.resource('kyverno.io/v1', 'ClusterPolicy');
    expect(cpol).toMatchObject({ namespaced: false, shortNames: ['cpol'] });
    expect(await resources.resource('kyverno.io/v2', 'PolicyException')).toMatchObject({
      namespaced: true,
      shortNames: ['polex'],
    });
  });

  it('has the policies that existed before it started', () => {
    expect(cache.hasSynced()).toBe(true);
    expect(keys(cache)).toContain('preexisting');
  });

  it('follows policies created, updated and deleted through the REST API', async () => {
    const created = await resources.create<JsonObject>(
      policyOf('require-team', [labelRule('r', ['Pod'])]) as unknown as JsonObject,
    );
    await eventually(() => keys(cache).includes('require-team'), 'the new ClusterPolicy');
    expect(cache.policies().find((p) => p.key === 'require-team')?.resourceVersion).toBe(
      (created.metadata as JsonObject).resourceVersion,
    );

    await resources.replace({ ...created, spec: { rules: [labelRule('r', ['Service'])] } } as unknown as JsonObject);
    await eventually(() => !keys(cache).includes('require-team'), 'the update to move it off Pods');
    expect(cache.policiesFor({ ...podIn('default'), kind: 'Service' }).map((p) => p.key)).toContain('require-team');

    await resources.create(policyOf('local', [labelRule('r', ['Pod'])], {}, 'team-a') as unknown as JsonObject);
    await eventually(() => keys(cache, 'team-a').includes('team-a/local'), 'the namespaced Policy');
    expect(keys(cache, 'default')).not.toContain('team-a/local');

    await resources.delete({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'require-team' });
    await resources.delete({ apiVersion: 'kyverno.io/v1', kind: 'Policy', namespace: 'team-a', name: 'local' });
    await eventually(
      () => !cache.policies().some((p) => p.key === 'require-team' || p.key === 'team-a/local'),
      'the deletes to reach the cache',
    );
  });

  it('keeps an invalid policy out and reports its problem', async () => {
    const wildcard = policyOf('wildcard-in-background', [labelRule('r', ['*'])]);
    await resources.create(wildcard as unknown as JsonObject);
    await eventually(
      () => cache.invalidPolicies().some((p) => p.key === 'wildcard-in-background'),
      'the invalid policy',
    );
    const invalid = cache.invalidPolicies().find((p) => p.key === 'wildcard-in-background')!;
    expect(invalid.problems[0]).toMatchObject({
      path: 'spec.rules[0].match.any[0].resources.kinds',
      message: expect.stringMatching(/^wildcard policy not allowed in background mode/),
    });
    expect(cache.policies().some((p) => p.key === 'wildcard-in-background')).toBe(false);
    expect(cache.stats().invalidPolicies).toBe(1);

    // Fixed in place: it becomes valid and leaves the invalid list.
    const stored = await resources.get<JsonObject>({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      name: 'wildcard-in-background',
    });
    await resources.replace({ ...stored, spec: { ...(stored.spec as JsonObject), background: false } } as JsonObject);
    await eventually(() => cache.policies().some((p) => p.key === 'wildcard-in-background'), 'the fixed policy');
    expect(cache.invalidPolicies()).toEqual([]);
    await resources.delete({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'wildcard-in-background' });
  });

  it('follows exceptions, only from the configured namespaces', async () => {
    await resources.create(exceptionOf('allowed', 'kyverno', 'preexisting', ['r']) as unknown as JsonObject);
    await resources.create(exceptionOf('elsewhere', 'team-a', 'preexisting', ['r']) as unknown as JsonObject);
    await eventually(() => cache.exceptionEntries().length === 2, 'both exceptions');
    expect(cache.exceptions().map((e) => e.metadata.name)).toEqual(['allowed']);

    await resources.delete({
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      namespace: 'kyverno',
      name: 'allowed',
    });
    await eventually(() => cache.exceptions().length === 0, 'the exception delete');
  });

  it('recovers after the watches drop', async () => {
    server.closeWatches();
    await resources.create(policyOf('after-drop', [labelRule('r', ['Pod'])]) as unknown as JsonObject);
    await eventually(() => keys(cache).includes('after-drop'), 'the policy created after the watches dropped');
  });
});
