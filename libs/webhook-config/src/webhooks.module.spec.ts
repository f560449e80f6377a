import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import type { WebhookConfiguration } from './configurations/types';
import type { WebhookConfigStore } from './reconcile/ports';
import { ALWAYS_LEADER } from '@edict/leader';
import { WebhookMonitor } from './reconcile/webhook-monitor';
import { WebhookReconciler } from './reconcile/webhook-reconciler';
import { WebhookRemoval } from './reconcile/webhook-removal';
import { WebhooksModule, type WebhooksModuleConfig } from './webhooks.module';
import { resolveWebhookOptions, WebhookOptionsError } from './webhooks.options';

class MemoryStore implements WebhookConfigStore {
  readonly objects = new Map<string, WebhookConfiguration>();
  private rv = 0;
  async get<T extends WebhookConfiguration>(kind: T['kind'], name: string) {
    return this.objects.get(`${kind}/${name}`) as T | undefined;
  }
  async create<T extends WebhookConfiguration>(object: T) {
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(`${object.kind}/${object.metadata.name}`, stored);
    return stored;
  }
  async replace<T extends WebhookConfiguration>(object: T) {
    return this.create(object);
  }
  async annotate() {}
  async listNames() {
    return [];
  }
  async delete(kind: string, name: string) {
    return this.objects.delete(`${kind}/${name}`);
  }
}

const config = (store = new MemoryStore()): WebhooksModuleConfig => ({
  options: { debounceMs: 0 },
  policies: { policies: () => [], hasSynced: () => true, onChange: () => () => undefined },
  caBundle: { current: () => ({ caBundlePem: 'PEM' }), onChange: () => () => undefined },
  leaderGate: ALWAYS_LEADER,
  store,
  discovery: { resolver: async () => () => [], invalidate: () => undefined },
});

describe('WebhooksModule', () => {
  it('provides the reconciler, monitor and removal; the monitor publishes the configurations', async () => {
    const store = new MemoryStore();
    const moduleRef = await Test.createTestingModule({ imports: [WebhooksModule.forRoot(config(store))] }).compile();
    await moduleRef.init();
    expect(moduleRef.get(WebhookReconciler)).toBeInstanceOf(WebhookReconciler);
    expect(moduleRef.get(WebhookRemoval)).toBeInstanceOf(WebhookRemoval);
    expect(await moduleRef.get(WebhookMonitor).check()).toMatchObject({ status: 'ok' });
    expect([...store.objects.keys()].sort()).toEqual([
      'MutatingWebhookConfiguration/edict-resource-mutating-webhook-cfg',
      'ValidatingWebhookConfiguration/edict-exception-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/edict-global-context-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/edict-policy-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/edict-resource-validating-webhook-cfg',
    ]);
    expect(await moduleRef.get(WebhookRemoval).removeAll()).toHaveLength(5);
    await moduleRef.close();
  });

  it('registers asynchronously', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [WebhooksModule.forRootAsync({ useFactory: async () => config() })],
    }).compile();
    expect(moduleRef.get(WebhookMonitor)).toBeInstanceOf(WebhookMonitor);
    await moduleRef.close();
  });

  it('rejects bad options and missing collaborators naming the field', () => {
    expect(() => WebhooksModule.forRoot({ ...config(), options: { servicePort: 0 } })).toThrow(/servicePort/);
    expect(() => WebhooksModule.forRoot({ ...config(), options: { url: 'http://x' } })).toThrow(/url must be an https/);
    expect(() => WebhooksModule.forRoot({ ...config(), leaderGate: undefined as never })).toThrow(WebhookOptionsError);
    expect(() => WebhooksModule.forRoot({ ...config(), store: undefined })).toThrow(/resources: required/);
  });

  it('defaults: Kyverno-like names, the own namespace and kube-system excluded, service edict-svc:443', () => {
    expect(resolveWebhookOptions({ namespace: 'policy' })).toMatchObject({
      endpoint: { service: { name: 'edict-svc', namespace: 'policy', port: 443 } },
      excludedNamespaces: ['policy', 'kube-system'],
      defaultTimeoutSeconds: 10,
      names: { resourceValidating: 'edict-resource-validating-webhook-cfg' },
    });
    expect(resolveWebhookOptions({ url: 'https://127.0.0.1:9443' }).endpoint).toEqual({
      url: 'https://127.0.0.1:9443',
    });
  });

  it('takes every name from its options, and refuses malformed ones naming the field', () => {
    const names = resolveWebhookOptions({
      validatingWebhookName: 'validate.kyverno.svc',
      exceptionValidatingWebhookName: 'kyverno-svc.kyverno.svc',
      managedByLabel: 'webhook.kyverno.io/managed-by',
      managedBy: 'kyverno',
      heartbeatAnnotation: 'kyverno.io/last-request-time',
    }).names;
    expect(names).toMatchObject({
      validatingWebhook: 'validate.kyverno.svc',
      mutatingWebhook: 'mutate.edict.svc',
      exceptionValidatingWebhook: 'kyverno-svc.kyverno.svc',
      managedByLabel: 'webhook.kyverno.io/managed-by',
      managedBy: 'kyverno',
      heartbeatAnnotation: 'kyverno.io/last-request-time',
    });
    expect(() => resolveWebhookOptions({ validatingWebhookName: 'validate.kyverno' })).toThrow(
      /validatingWebhookName: webhook names must be DNS names of three or more segments/,
    );
    expect(() => resolveWebhookOptions({ managedByLabel: 'webhook kyverno' })).toThrow(/managedByLabel/);
    expect(() => resolveWebhookOptions({ managedBy: '-x' })).toThrow(/managedBy: managedBy must be a label value/);
    expect(() => resolveWebhookOptions({ heartbeatAnnotation: 'a/b/c' })).toThrow(/heartbeatAnnotation/);
  });
});
