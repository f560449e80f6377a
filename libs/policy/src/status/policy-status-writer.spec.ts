import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { Policy, Rule } from '@edict/engine';
import type { JsonObject } from '@edict/foundation';
import { InformerFactory, KubeHttpClient, KubeResources, type EventInput } from '@edict/kube';
import { eventually, kubeConfigForUrl } from '@edict/kube/testing';
import { createPolicyFeeds } from '../informers/policy-feeds';
import { PolicyCache } from '../policy-cache';
import { validatePolicyOptions } from '../policy.options';
import { installPolicyCrds, labelRule, policyOf } from '../testing';
import { KubePolicyStatusStore } from './kube-policy-status-store';
import type { WebhookPublication } from './policy-status';
import { PolicyStatusWriter } from './policy-status-writer';
import type { PolicyStatusStore, WebhookPublicationSource } from './ports';

const FAST = { watchTimeoutSeconds: 5, retryInitialMs: 20, retryMaxMs: 200, resyncIntervalMs: 0 };
const V1 = 'kyverno.io/v1';

/** A publication source the test drives. */
class Publications implements WebhookPublicationSource {
  private readonly listeners = new Set<(p: WebhookPublication) => void>();
  onPublished(listener: (p: WebhookPublication) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  publish(policies: Iterable<[string, number | undefined]>, unresolved: Iterable<[string, string[]]> = []): void {
    const publication = { policies: new Map(policies), unresolvedKinds: new Map(unresolved) };
    for (const listener of this.listeners) listener(publication);
  }
}

class Gate {
  leader = true;
  private readonly listeners = new Set<() => void>();
  isLeader(): boolean {
    return this.leader;
  }
  onStartedLeading(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  startLeading(): void {
    this.leader = true;
    for (const listener of this.listeners) listener();
  }
}

/** Counts writes, and can let another client change the object just before the next one. */
class CountingStore implements PolicyStatusStore {
  writes = 0;
  beforeNextWrite?: () => void;
  constructor(private readonly inner: PolicyStatusStore) {}
  get(kind: Policy['kind'], name: string, namespace?: string) {
    return this.inner.get(kind, name, namespace);
  }
  async replaceStatus(policy: Policy) {
    const before = this.beforeNextWrite;
    this.beforeNextWrite = undefined;
    before?.();
    this.writes += 1;
    return this.inner.replaceStatus(policy);
  }
}

describe('PolicyStatusWriter against the in-memory API server', () => {
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50, admission: false });
  let resources: KubeResources;
  let factory: InformerFactory;
  let cache: PolicyCache;
  const writers: PolicyStatusWriter[] = [];

  const stored = (name: string, namespace?: string) =>
    server.get(V1, namespace ? 'Policy' : 'ClusterPolicy', name, namespace) as
      (JsonObject & { metadata: { resourceVersion: string; generation?: number }; status?: JsonObject }) | undefined;
  const readyOf = (name: string, namespace?: string) =>
    ((stored(name, namespace)?.status?.conditions ?? []) as JsonObject[]).find((c) => c.type === 'Ready');
  /** Waits until the cache holds the stored resourceVersion of each named policy. */
  const cacheCaughtUp = (...keys: string[]) =>
    eventually(
      () =>
        keys.every((key) => {
          const [namespace, name] = key.includes('/') ? key.split('/') : [undefined, key];
          const version = stored(name!, namespace)?.metadata.resourceVersion;
          const snapshot = cache.snapshot();
          const entry = snapshot.policies.get(key) ?? snapshot.invalid.get(key);
          return version !== undefined && entry?.resourceVersion === version;
        }),
      `the cache to hold ${keys.join(', ')}`,
    );
  const writer = (publications: Publications, gate: Gate, store: PolicyStatusStore, debounceMs = 10) => {
    const created = new PolicyStatusWriter({ policies: cache, publications, store, leader: gate }, { debounceMs });
    writers.push(created);
    return created;
  };

  beforeAll(async () => {
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    installPolicyCrds(server);
    resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
    factory = new InformerFactory(resources);
    const options = validatePolicyOptions(FAST);
    cache = new PolicyCache(options, createPolicyFeeds(factory, options));
    cache.onModuleInit();
    await cache.waitForSync(5_000);
    server.create(policyOf('require-team', [labelRule('check-team', ['Pod'])]) as unknown as JsonObject);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    server.create(policyOf('local', [labelRule('check', ['ConfigMap'])], {}, 'apps') as unknown as JsonObject);
    server.create(
      policyOf('broken', [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] } } as Rule]) as never,
    );
    await cacheCaughtUp('require-team', 'apps/local', 'broken');
  });
  afterEach(() => {
    for (const w of writers.splice(0)) w.stop();
  });
  afterAll(async () => {
    await cache.onModuleDestroy();
    await factory.onModuleDestroy();
    await server.stop();
  });

  it('writes nothing before the first publication, nor on a replica that is not the leader', async () => {
    const publications = new Publications();
    const gate = new Gate();
    const store = new CountingStore(new KubePolicyStatusStore(resources));
    const w = writer(publications, gate, store);
    expect(await w.sync()).toEqual({ status: 'skipped', reason: 'not-published' });
    gate.leader = false;
    publications.publish([['require-team', 1]]);
    expect(await w.sync()).toEqual({ status: 'skipped', reason: 'not-leader' });
    expect(store.writes).toBe(0);
    expect(stored('require-team')?.status).toBeUndefined();
  });

  it('writes Ready, autogen and rule counts through /status once published, then nothing on a second pass', async () => {
    const publications = new Publications();
    const store = new CountingStore(new KubePolicyStatusStore(resources));
    const w = writer(publications, new Gate(), store);
    w.start();
    publications.publish([
      ['require-team', 1],
      ['apps/local', 1],
    ]);
    await eventually(() => readyOf('require-team')?.status === 'True', 'require-team Ready');
    await eventually(() => readyOf('local', 'apps')?.status === 'True', 'apps/local Ready');
    await eventually(() => readyOf('broken')?.status === 'False', 'broken not Ready');

    const status = stored('require-team')!.status!;
    expect(readyOf('require-team')).toMatchObject({ reason: 'Succeeded', message: 'Ready' });
    expect(status.rulecount).toEqual({ validate: 1, generate: 0, mutate: 0, verifyimages: 0 });
    expect(((status.autogen as JsonObject).rules as JsonObject[]).map((r) => r.name)).toEqual([
      'autogen-check-team',
      'autogen-cronjob-check-team',
    ]);
    expect(readyOf('broken')).toMatchObject({ reason: 'Failed' });
    expect(String(readyOf('broken')!.message)).toMatch(/^Not Ready: the policy is invalid and not enforced: /);
    // A status write is not a spec change: the generation stays.
    expect(stored('require-team')!.metadata.generation).toBe(1);

    await cacheCaughtUp('require-team', 'apps/local', 'broken');
    const versions = ['require-team', 'broken'].map((n) => stored(n)!.metadata.resourceVersion);
    const writes = store.writes;
    const again = await w.sync();
    expect(again).toMatchObject({ status: 'done', written: [], stale: [], failed: [] });
    expect(store.writes).toBe(writes);
    expect(['require-team', 'broken'].map((n) => stored(n)!.metadata.resourceVersion)).toEqual(versions);
  });

  it('gives the same result on a second leader: it writes nothing', async () => {
    await cacheCaughtUp('require-team', 'apps/local', 'broken');
    const publications = new Publications();
    const gate = new Gate();
    const store = new CountingStore(new KubePolicyStatusStore(resources));
    const w = writer(publications, gate, store);
    w.start();
    gate.startLeading();
    publications.publish([
      ['require-team', 1],
      ['apps/local', 1],
    ]);
    const outcome = await w.sync();
    expect(outcome).toMatchObject({ status: 'done', written: [], unchanged: 3 });
    expect(store.writes).toBe(0);
  });

  it('retries a conflicting write on a fresh read, keeping what the other writer changed', async () => {
    await cacheCaughtUp('apps/local');
    const publications = new Publications();
    const store = new CountingStore(new KubePolicyStatusStore(resources));
    // Only the pass this test runs: the label change below must not start another one.
    const w = writer(publications, new Gate(), store, 60_000);
    w.start();
    store.beforeNextWrite = () => {
      const current = stored('local', 'apps')!;
      server.update({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    };
    // Published without apps/local: its status must go to Not Ready.
    publications.publish([['require-team', 1]]);
    await w.sync();
    expect(readyOf('local', 'apps')?.status).toBe('False');
    expect(store.writes).toBe(2); // the stale write, then the one on the fresh read
    expect(readyOf('local', 'apps')).toMatchObject({
      reason: 'Failed',
      message: 'Not Ready: the webhook configurations do not include the policy yet',
    });
    expect((stored('local', 'apps')!.metadata as JsonObject).labels).toEqual({ touched: 'yes' });
  });

  it('leaves a policy whose spec moved on to the pass its cache update brings', async () => {
    await cacheCaughtUp('require-team', 'apps/local');
    const publications = new Publications();
    const store = new CountingStore(new KubePolicyStatusStore(resources));
    // Only the passes this test runs: no trigger fires within it.
    const w = writer(publications, new Gate(), store, 60_000);
    w.start();
    store.beforeNextWrite = () => {
      const current = stored('require-team')!;
      server.update({ ...current, spec: { ...(current.spec as JsonObject), background: false } });
    };
    // Not published: the writer wants Not Ready, but the spec changes (generation 2) under it.
    publications.publish([['apps/local', 1]]);
    const outcome = await w.sync();
    expect(outcome).toMatchObject({ status: 'done', stale: ['require-team'], failed: [] });
    expect(stored('require-team')!.metadata.generation).toBe(2);
    expect(readyOf('require-team')?.status).toBe('True'); // nothing written on the strength of generation 1
  });

  it('passes debounceMs after the first trigger, however many triggers keep coming', async () => {
    const publications = new Publications();
    const w = writer(publications, new Gate(), new KubePolicyStatusStore(resources), 100);
    const passes = vi.spyOn(w, 'sync');
    w.start();
    // A publication every 20 ms never leaves 100 ms of quiet: passes must still run.
    const triggers = setInterval(() => publications.publish([['require-team', 1]]), 20);
    try {
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      clearInterval(triggers);
    }
    expect(passes.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(passes.mock.calls.length).toBeLessThanOrEqual(8);
  });
  it('says which version stays enforced when a policy turns invalid, with one PolicyError event over two leaders', async () => {
    server.create(
      policyOf('guarded', [labelRule('check', ['Pod'])], {
        validationFailureAction: 'Enforce',
      }) as unknown as JsonObject,
    );
    await cacheCaughtUp('guarded');
    const valid = stored('guarded')!;
    // A write the policy-validation webhook never saw (this server runs no admission): a rule without a type.
    const spec = valid.spec as JsonObject;
    const untyped = { name: 'untyped', match: { any: [{ resources: { kinds: ['Pod'] } }] } };
    server.update({ ...valid, spec: { ...spec, rules: [...(spec.rules as JsonObject[]), untyped] } });
    await eventually(
      () => cache.snapshot().invalid.get('guarded')?.enforced?.basis === 'last-valid',
      'guarded invalid, its last valid version in force',
    );
    const events: EventInput[] = [];
    const recorder = { record: (event: EventInput) => void events.push(event) };
    const leaderPass = async () => {
      const publications = new Publications();
      const w = new PolicyStatusWriter(
        {
          policies: cache,
          publications,
          store: new KubePolicyStatusStore(resources),
          leader: new Gate(),
          events: recorder,
        },
        { debounceMs: 60_000 },
      );
      writers.push(w);
      w.start();
      publications.publish([['guarded', 1]]);
      return w.sync();
    };

    expect(await leaderPass()).toMatchObject({ status: 'done', written: expect.arrayContaining(['guarded']) });
    const ready = readyOf('guarded')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(ready.message).toBe(
      `Not Ready: the policy is invalid; its last valid version (resourceVersion ${valid.metadata.resourceVersion}, ` +
        "generation 1) is still enforced until the policy is fixed or deleted: spec.rules[1]: No operation defined in the rule 'untyped'.(supported operations: mutate,validate,generate,verifyImages)",
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'PolicyError',
        regarding: expect.objectContaining({ kind: 'ClusterPolicy', name: 'guarded' }),
        note: String(ready.message).replace(/^Not Ready: /, ''),
      }),
    ]);

    // Another leader (or the same one again) finds the status saying it: no write, no second event.
    const again = await leaderPass();
    expect(again).toMatchObject({ status: 'done', failed: [] });
    expect((again as { written: string[] }).written).not.toContain('guarded');
    expect(events).toHaveLength(1);
  });
});
