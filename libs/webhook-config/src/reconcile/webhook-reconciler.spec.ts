import { describe, expect, it } from 'vitest';
import { resolveWebhookOptions } from '../webhooks.options';
import type { DiscoverySource } from '@edict/kube';
import { PolicyWebhooks } from './policy-webhooks';
import type { WebhookPublication } from '@edict/policy';
import type { CaBundleSource, DesiredWebhooks, PolicySource, ServedTypesSource, WebhookConfigStore } from './ports';
import { WebhookReconciler } from './webhook-reconciler';

/** A signal the test fires by hand. */
function signal<T extends unknown[]>() {
  const listeners = new Set<(...args: T) => void>();
  return {
    onChange: (listener: (...args: T) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    fire: (...args: T) => listeners.forEach((listener) => listener(...args)),
  };
}

describe('WebhookReconciler scheduling', () => {
  it('runs the pass a CRD asks for at once, even when a debounced trigger follows it', async () => {
    const policyChanges = signal<[]>();
    const crdChanges = signal<[string]>();
    const policies: PolicySource = { policies: () => [], hasSynced: () => true, onChange: policyChanges.onChange };
    // Without a CA bundle a pass is skipped, which is enough to see when one ran.
    const ca: CaBundleSource = { current: () => undefined, onChange: () => () => undefined };
    const invalidated: Array<string | undefined> = [];
    const discovery: DiscoverySource = {
      resolver: () => Promise.resolve(() => []),
      invalidate: (group) => void invalidated.push(group),
    };
    const servedTypes: ServedTypesSource = { onChange: crdChanges.onChange };
    const options = resolveWebhookOptions({ debounceMs: 60_000 });
    const reconciler = new WebhookReconciler(
      options,
      new PolicyWebhooks(options, policies, discovery, servedTypes),
      ca,
      {} as WebhookConfigStore, // never reached without a CA bundle
    );
    reconciler.start();
    try {
      crdChanges.fire('example.com');
      policyChanges.fire();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(reconciler.lastResult()?.outcome).toEqual({ status: 'skipped', reason: 'no-ca-bundle' });
      expect(invalidated).toEqual(['example.com']);
    } finally {
      reconciler.stop();
    }
  });
});

describe('WebhookReconciler batching', () => {
  it('runs one pass debounceMs after the first trigger, however many triggers keep coming', async () => {
    const policyChanges = signal<[]>();
    const policies: PolicySource = { policies: () => [], hasSynced: () => true, onChange: policyChanges.onChange };
    let passes = 0;
    // Without a CA bundle a pass is skipped; counting the bundle reads counts the passes.
    const ca: CaBundleSource = {
      current: () => void passes++,
      onChange: () => () => undefined,
    };
    const discovery: DiscoverySource = { resolver: () => Promise.resolve(() => []), invalidate: () => undefined };
    const options = resolveWebhookOptions({ debounceMs: 100 });
    const reconciler = new WebhookReconciler(
      options,
      new PolicyWebhooks(options, policies, discovery, { onChange: () => () => undefined }),
      ca,
      {} as WebhookConfigStore,
    );
    reconciler.start();
    const triggers = setInterval(() => policyChanges.fire(), 20);
    try {
      // A trigger every 20 ms never leaves 100 ms of quiet: passes must still run.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(passes).toBeGreaterThanOrEqual(2);
      expect(passes).toBeLessThanOrEqual(8);
    } finally {
      clearInterval(triggers);
      reconciler.stop();
    }
  });
});

describe('WebhookReconciler pass cut short', () => {
  it('reports a pass that lost leadership half-way as skipped, and publishes nothing', async () => {
    const configuration = (name: string) =>
      ({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [],
      }) as never;
    const desired: DesiredWebhooks = {
      build: async () => ({
        validating: [configuration('first'), configuration('second')],
        mutating: [],
        complete: true,
        unresolved: [],
        publication: {} as WebhookPublication,
      }),
      onChange: () => () => undefined,
      owned: { ValidatingWebhookConfiguration: ['first', 'second'], MutatingWebhookConfiguration: [] },
      removesLabelled: false,
    };
    let leading = true;
    const created: string[] = [];
    const store = {
      get: async () => undefined,
      create: async (object: { metadata: { name: string } }) => {
        created.push(object.metadata.name);
        leading = false; // the Lease is lost while the first configuration is written
        return object;
      },
    } as unknown as WebhookConfigStore;
    const reconciler = new WebhookReconciler(
      resolveWebhookOptions({}),
      desired,
      { current: () => ({ caBundlePem: 'PEM' }), onChange: () => () => undefined },
      store,
      { isLeader: () => leading },
    );
    const published: WebhookPublication[] = [];
    reconciler.onPublished((publication) => published.push(publication));

    await expect(reconciler.reconcile()).resolves.toEqual({ status: 'skipped', reason: 'not-leader' });
    expect(created).toEqual(['first']);
    expect(published).toEqual([]);
  });
});
