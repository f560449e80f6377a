import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { InformerFactory, KubeHttpClient, KubeResources, DiscoveryResolver } from '@edict/kube';
import { eventually, kubeConfigForUrl } from '@edict/kube/testing';
import { createPolicyFeeds, PolicyCache, validatePolicyOptions, type WebhookPublication } from '@edict/policy';
import { fakePolicyFeeds, installPolicyCrds, labelRule, policyOf } from '@edict/policy/testing';
import { HEARTBEAT_ANNOTATION, MANAGED_BY_LABEL } from './configurations/names';
import { staticResolver } from './testing';
import type { RuleWithOperations, ValidatingWebhookConfiguration } from './configurations/types';
import { KubeWebhookConfigStore } from './reconcile/kube-webhook-store';
import { PolicyWebhooks } from './reconcile/policy-webhooks';
import type { CaBundleSource, PolicySource, WebhookSettings } from './reconcile/ports';
import { WebhookMonitor } from './reconcile/webhook-monitor';
import { WebhookReconciler } from './reconcile/webhook-reconciler';
import { WebhookRemoval } from './reconcile/webhook-removal';
import { resolveWebhookOptions } from './webhooks.options';

const FAST = { watchTimeoutSeconds: 5, retryInitialMs: 20, retryMaxMs: 200, resyncIntervalMs: 0 };
const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const VWC = 'admissionregistration.k8s.io/v1';
const RESOURCE_VWC = 'edict-resource-validating-webhook-cfg';
const noAutogen = (policy: ReturnType<typeof policyOf>) => ({
  ...policy,
  metadata: { ...policy.metadata, annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
});

describe('webhook controller against the in-memory API server', () => {
  // The admission chain is off: no admission controller answers the webhooks written here.
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50, admission: false });
  const gate = {
    leader: true,
    isLeader(): boolean {
      return this.leader;
    },
  };
  const ca: CaBundleSource = { current: () => ({ caBundlePem: CA }), onChange: () => () => undefined };
  const options = resolveWebhookOptions({
    namespace: 'edict',
    debounceMs: 20,
    deploymentName: 'edict',
    discoveryCacheMs: 0,
  });
  let resources: KubeResources;
  let factory: InformerFactory;
  let cache: PolicyCache;
  let store: KubeWebhookConfigStore;
  let reconciler: WebhookReconciler;

  const policyWebhooks = (policies: PolicySource) =>
    new PolicyWebhooks(options, policies, new DiscoveryResolver(resources.http, 0));
  const stored = (name = RESOURCE_VWC) =>
    server.get(VWC, 'ValidatingWebhookConfiguration', name) as unknown as ValidatingWebhookConfiguration | undefined;
  const resourcesOf = (name = RESOURCE_VWC): string[] =>
    (stored(name)?.webhooks ?? []).flatMap((hook) => hook.rules.flatMap((rule: RuleWithOperations) => rule.resources));
  /** `group/resource` of each rule's resources. */
  const groupResourcesOf = (name = RESOURCE_VWC): string[] =>
    (stored(name)?.webhooks ?? []).flatMap((hook) =>
      hook.rules.flatMap((rule: RuleWithOperations) =>
        (rule.apiGroups ?? []).flatMap((group) => (rule.resources ?? []).map((resource) => `${group}/${resource}`)),
      ),
    );

  beforeAll(async () => {
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    installPolicyCrds(server);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'edict' } });
    resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
    factory = new InformerFactory(resources);
    const policyOptions = validatePolicyOptions(FAST);
    cache = new PolicyCache(policyOptions, createPolicyFeeds(factory, policyOptions));
    cache.onModuleInit();
    await cache.waitForSync(5_000);
    store = new KubeWebhookConfigStore(resources);
    reconciler = new WebhookReconciler(options, policyWebhooks(cache), ca, store, gate);
    reconciler.start();
  });
  afterAll(async () => {
    reconciler.stop();
    await cache.onModuleDestroy();
    await factory.onModuleDestroy();
    await server.stop();
  });

  it('creates the configurations with the rules the policies need when policies appear', async () => {
    await resources.create(noAutogen(policyOf('require-team', [labelRule('r', ['Pod'])])) as unknown as JsonObject);
    await eventually(() => resourcesOf().includes('pods'), 'the Pod rule in the validating configuration');
    await reconciler.reconcile(); // let the triggered pass finish
    const config = stored()!;
    expect(config.metadata.labels?.[MANAGED_BY_LABEL]).toBe('edict');
    expect(config.webhooks.map((h) => h.name)).toEqual(['validate.edict.svc-fail']);
    expect(config.webhooks[0]!.clientConfig).toEqual({
      caBundle: Buffer.from(CA).toString('base64'),
      service: { name: 'edict-svc', namespace: 'edict', path: '/validate/fail', port: 443 },
    });
    expect(stored('edict-policy-validating-webhook-cfg')).toBeDefined();
    expect(server.get(VWC, 'MutatingWebhookConfiguration', 'edict-resource-mutating-webhook-cfg')).toBeDefined();

    await resources.create(
      noAutogen(policyOf('cm', [labelRule('r', ['ConfigMap'])], { failurePolicy: 'Ignore' })) as unknown as JsonObject,
    );
    await eventually(() => resourcesOf().includes('configmaps'), 'the ConfigMap rule');
    expect(stored()!.webhooks.map((h) => h.name)).toEqual(['validate.edict.svc-ignore', 'validate.edict.svc-fail']);
  });

  it('writes nothing when nothing changed', async () => {
    const before = stored()!.metadata.resourceVersion;
    const outcome = await reconciler.reconcile();
    expect(outcome).toMatchObject({ status: 'done', complete: true, created: [], updated: [] });
    expect(stored()!.metadata.resourceVersion).toBe(before);
  });

  it('announces what it published: each policy at its generation, and the kinds it could not carry', async () => {
    const heard: WebhookPublication[] = [];
    const off = reconciler.onPublished((publication) => heard.push(publication));
    try {
      await reconciler.reconcile();
      expect(heard).toHaveLength(1);
      expect([...heard[0]!.policies]).toEqual([
        ['cm', 1],
        ['require-team', 1],
      ]);
      expect(heard[0]!.unresolvedKinds.size).toBe(0);

      gate.leader = false;
      heard.length = 0;
      expect(await reconciler.reconcile()).toMatchObject({ status: 'skipped', reason: 'not-leader' });
      expect(heard).toEqual([]);
    } finally {
      gate.leader = true;
      off();
    }
    // Discovery that does not answer for ConfigMaps: the `cm` policy is published without them.
    const blind = new WebhookReconciler(
      options,
      new PolicyWebhooks(options, cache, {
        resolver: async () => staticResolver(['ConfigMap']),
        invalidate: () => undefined,
      }),
      ca,
      store,
      gate,
    );
    blind.onPublished((publication) => heard.push(publication));
    expect(await blind.reconcile()).toMatchObject({ status: 'done', complete: false });
    expect([...heard.at(-1)!.unresolvedKinds]).toEqual([['cm', ['ConfigMap']]]);
  });

  it('recreates a deleted configuration on check() and stamps the heartbeat', async () => {
    const monitor = new WebhookMonitor(options, reconciler, store, gate);
    server.delete(VWC, 'ValidatingWebhookConfiguration', RESOURCE_VWC);
    expect(stored()).toBeUndefined();
    const outcome = await monitor.check();
    expect(outcome).toMatchObject({ status: 'ok', reconcile: { created: [RESOURCE_VWC] } });
    expect(resourcesOf()).toContain('pods');
    const stamp = stored()!.metadata.annotations?.[HEARTBEAT_ANNOTATION];
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(monitor.lastSuccess()).toBeInstanceOf(Date);
    // The heartbeat is not drift: the next pass leaves the object alone.
    const rv = stored()!.metadata.resourceVersion;
    expect(await reconciler.reconcile()).toMatchObject({ updated: [], created: [] });
    expect(stored()!.metadata.resourceVersion).toBe(rv);
  });

  it('rebuilds labels and annotations from the ConfigMap: a removed key goes from the live configurations, the heartbeat stays', async () => {
    let settings: WebhookSettings = {
      webhook: {},
      matchConditions: [],
      webhookLabels: { team: 'platform', tier: 'gold' },
      webhookAnnotations: { owner: 'platform', 'cost-center': '42' },
    };
    const withSettings = new WebhookReconciler(
      options,
      new PolicyWebhooks(options, cache, new DiscoveryResolver(resources.http, 0), null, null, {
        current: () => settings,
        onChange: () => () => undefined,
      }),
      ca,
      store,
      gate,
    );
    await withSettings.reconcile();
    const stamp = stored()!.metadata.annotations?.[HEARTBEAT_ANNOTATION];
    expect(stamp).toBeDefined();
    for (const name of [
      RESOURCE_VWC,
      'edict-policy-validating-webhook-cfg',
      'edict-global-context-validating-webhook-cfg',
    ])
      expect(stored(name)!.metadata.labels).toEqual({ team: 'platform', tier: 'gold', [MANAGED_BY_LABEL]: 'edict' });

    settings = { ...settings, webhookLabels: { team: 'platform' }, webhookAnnotations: { owner: 'platform' } };
    expect(await withSettings.reconcile()).toMatchObject({ status: 'done' });
    for (const name of [
      RESOURCE_VWC,
      'edict-policy-validating-webhook-cfg',
      'edict-exception-validating-webhook-cfg',
    ]) {
      expect(stored(name)!.metadata.labels).toEqual({ team: 'platform', [MANAGED_BY_LABEL]: 'edict' });
      expect(stored(name)!.metadata.annotations).not.toHaveProperty('cost-center');
      expect(stored(name)!.metadata.annotations?.['owner']).toBe('platform');
    }
    expect(stored()!.metadata.annotations?.[HEARTBEAT_ANNOTATION]).toBe(stamp);
    const mutating = server.get(VWC, 'MutatingWebhookConfiguration', 'edict-resource-mutating-webhook-cfg');
    expect((mutating!['metadata'] as { labels: object }).labels).toEqual({
      team: 'platform',
      [MANAGED_BY_LABEL]: 'edict',
    });
    // Back to no ConfigMap keys for the tests after this one.
    settings = { webhook: {}, matchConditions: [], webhookLabels: {}, webhookAnnotations: {} };
    await withSettings.reconcile();
    expect(stored()!.metadata.labels).toEqual({ [MANAGED_BY_LABEL]: 'edict' });
  });

  it('never writes when not the leader', async () => {
    gate.leader = false;
    try {
      const monitor = new WebhookMonitor(options, reconciler, store, gate);
      server.delete(VWC, 'ValidatingWebhookConfiguration', RESOURCE_VWC);
      expect(await reconciler.reconcile()).toEqual({ status: 'skipped', reason: 'not-leader' });
      expect(await monitor.check()).toEqual({ status: 'skipped', reason: 'not-leader' });
      await resources.create(noAutogen(policyOf('secrets', [labelRule('r', ['Secret'])])) as unknown as JsonObject);
      await new Promise((resolve) => setTimeout(resolve, 150)); // past the debounce
      expect(stored()).toBeUndefined();
    } finally {
      gate.leader = true;
    }
    await reconciler.reconcile();
    expect(resourcesOf()).toEqual(expect.arrayContaining(['pods', 'configmaps', 'secrets']));
  });

  it('never narrows the published rules before the policy set is complete', async () => {
    const feeds = fakePolicyFeeds();
    const partial = new PolicyCache(validatePolicyOptions({}), feeds);
    partial.start();
    feeds.clusterPolicies.add(noAutogen(policyOf('only-services', [labelRule('r', ['Service'])])));
    const other = new WebhookReconciler(options, policyWebhooks(partial), ca, store, gate);
    const before = resourcesOf();
    const held = await other.reconcile();
    expect(held).toMatchObject({ status: 'done', complete: false });
    expect(resourcesOf()).toEqual(expect.arrayContaining([...before, 'services']));

    feeds.markSynced();
    expect(await other.reconcile()).toMatchObject({ status: 'done', complete: true, updated: [RESOURCE_VWC] });
    expect(resourcesOf()).toEqual(['services']);
    await partial.onModuleDestroy();
    // The real controller puts the full set back.
    expect(await reconciler.reconcile()).toMatchObject({ updated: [RESOURCE_VWC] });
    expect(resourcesOf()).toEqual(expect.arrayContaining(['pods', 'configmaps', 'secrets']));
  });

  it('resolves kinds again when the served types change: a CRD that comes after its policy gets covered', async () => {
    reconciler.stop(); // only the reconciler under test writes meanwhile
    const listeners = new Set<(group: string) => void>();
    const servedTypes = {
      onChange: (listener: (group: string) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    // Discovery cached for a minute: only the served-types signal can make it read the CRD.
    const discovery = new DiscoveryResolver(resources.http, 60_000);
    const late = new WebhookReconciler(
      options,
      new PolicyWebhooks(options, cache, discovery, servedTypes),
      ca,
      store,
      gate,
    );
    late.start();
    try {
      await resources.create(noAutogen(policyOf('gadgets', [labelRule('r', ['Gadget'])])) as unknown as JsonObject);
      await eventually(() => cache.policies().some((p) => p.key === 'gadgets'), 'the policy cached');
      await late.reconcile();
      // Before its CRD: the conventional plural in any group, so that the first Gadgets are seen.
      expect(groupResourcesOf()).toContain('*/gadgets');
      expect(groupResourcesOf()).not.toContain('example.com/gadgets');
      server.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', kind: 'Gadget' },
          versions: [{ name: 'v1', served: true, storage: true }],
        },
      });
      for (const listener of listeners) listener('example.com');
      await eventually(
        () => groupResourcesOf().includes('example.com/gadgets'),
        'the Gadget rule in the validating configuration',
      );
      expect(groupResourcesOf()).not.toContain('*/gadgets');
    } finally {
      late.stop();
      reconciler.start();
    }
  });

  it('removes every configuration when the Deployment is scaled to zero, idempotently', async () => {
    const removal = new WebhookRemoval(options, reconciler, store, resources);
    const deployment = server.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'edict', namespace: 'edict' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'edict' } },
        template: { metadata: { labels: { app: 'edict' } }, spec: { containers: [{ name: 'c', image: 'edict' }] } },
      },
    });
    expect(await removal.removeIfScaledToZero()).toBe(false);
    expect(stored()).toBeDefined();

    server.update({ ...deployment, spec: { ...(deployment.spec as JsonObject), replicas: 0 } });
    expect(await removal.isScaledToZero()).toBe(true);
    expect(await removal.removeIfScaledToZero()).toBe(true);
    expect(server.list(VWC, 'ValidatingWebhookConfiguration')).toEqual([]);
    expect(server.list(VWC, 'MutatingWebhookConfiguration')).toEqual([]);
    expect(await removal.removeAll()).toEqual([]);
    // Stopped: later triggers do not bring them back.
    expect(await reconciler.reconcile()).toEqual({ status: 'skipped', reason: 'stopped' });
  });
});
