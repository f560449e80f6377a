import { afterEach, describe, expect, it } from 'vitest';
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { ServedType } from '@edict/kube';
import { FakeCluster } from '../testing/fake-cluster';
import { CM, FakeGpolGeneration, gpol } from '../testing/fake-gpol-generation';
import { gpolKey } from './gpol-downstream';
import type { DownstreamType } from './gpol-sync-reconciler';
import { GPOL_SYNC_LIMITS, GpolSyncRun, type TypeWatchHandlers } from './gpol-sync-run';

const SERVED: ServedType[] = [
  {
    apiVersion: 'v1',
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    verbs: [],
  },
  {
    apiVersion: 'v1',
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    verbs: [],
  },
];

const SYNC = { synchronize: { enabled: true } };

/** A run over a FakeCluster whose watches are driven by hand, as informers would call them. */
class Harness {
  readonly cluster = new FakeCluster();
  readonly generation = new FakeGpolGeneration(this.cluster);
  policies: CompiledGeneratingPolicy[] = [];
  readonly watches = new Map<string, TypeWatchHandlers>();
  readonly triggerWatches = new Map<string, TypeWatchHandlers>();
  readonly warnings: string[] = [];
  private listener: () => void = () => undefined;
  requests: TypeWatchHandlers | undefined;
  private readonly abort = new AbortController();
  readonly run: GpolSyncRun;
  private readonly done: Promise<void>;

  constructor(limits = GPOL_SYNC_LIMITS) {
    this.run = new GpolSyncRun(
      {
        cluster: this.cluster,
        generation: this.generation,
        policies: () => ({ compiled: this.policies, installed: new Set(this.policies.map(gpolKey)) }),
        onPoliciesChange: (listener) => {
          this.listener = listener;
          return () => (this.listener = () => undefined);
        },
        watchUpdateRequests: (handlers) => {
          this.requests = handlers;
          return async () => void (this.requests = undefined);
        },
        servedTypes: async () => SERVED,
        watch: (type: DownstreamType, handlers) => {
          this.watches.set(`${type.apiVersion}/${type.kind}`, handlers);
          return async () => void this.watches.delete(`${type.apiVersion}/${type.kind}`);
        },
        watchTriggers: (type: DownstreamType, handlers) => {
          this.triggerWatches.set(`${type.apiVersion}/${type.kind}`, handlers);
          return async () => void this.triggerWatches.delete(`${type.apiVersion}/${type.kind}`);
        },
        log: () => undefined,
        warn: (message) => this.warnings.push(message),
      },
      this.abort.signal,
      limits,
    );
    this.done = this.run.run();
  }

  async setPolicies(policies: CompiledGeneratingPolicy[]): Promise<void> {
    this.policies = policies;
    this.listener();
    await this.settle();
  }

  namespace(name: string): KubeObject {
    return this.cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  /** A trigger whose downstream an UpdateRequest of `policy` generated before. */
  async generated(name: string, policy: CompiledGeneratingPolicy): Promise<KubeObject> {
    const trigger = this.namespace(name);
    await this.generation.generate(policy, trigger);
    return trigger;
  }

  configMaps(): string[] {
    return [...this.cluster.objects.values()]
      .filter((object) => object.kind === 'ConfigMap')
      .map((object) => `${object.metadata?.namespace}/${object.metadata?.name}`)
      .sort();
  }

  /** Modifies a ConfigMap and tells the watch, as a user's write would. */
  async modify(namespace: string, name: string, data: Record<string, string>): Promise<void> {
    const stored = this.cluster.find('v1', 'ConfigMap', name, namespace)!;
    const changed = await this.cluster.replace({ ...stored, data });
    this.watches.get('v1/ConfigMap')?.update(changed);
    await this.settle();
  }

  async remove(namespace: string, name: string): Promise<void> {
    const stored = this.cluster.find('v1', 'ConfigMap', name, namespace)!;
    await this.cluster.delete({ ...CM, name, namespace });
    this.watches.get('v1/ConfigMap')?.delete(stored);
    await this.settle();
  }

  async settle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.run.idle();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

function updateRequest(policy: string, status: JsonObject, ruleContext: JsonObject[] = []): KubeObject {
  return {
    apiVersion: 'kyverno.io/v2',
    kind: 'UpdateRequest',
    metadata: { name: `ur-${policy}`, namespace: 'edict', uid: `ur-${policy}-uid` },
    spec: { requestType: 'cel-generate', policy, ruleContext },
    status,
  } as KubeObject;
}

describe('GpolSyncRun', () => {
  const harnesses: Harness[] = [];
  const start = (limits = GPOL_SYNC_LIMITS) => {
    const harness = new Harness(limits);
    harnesses.push(harness);
    return harness;
  };
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  });

  it('a synchronized policy appearing restores the triggers whose downstream exists, and only those', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.generated('team-a', policy);
    h.namespace('team-b'); // left to its UpdateRequest, as Kyverno's cache restore creates nothing
    const stored = h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!;
    await h.cluster.replace({ ...stored, data: { key: 'tampered' } });
    await h.setPolicies([policy]);
    expect(h.configMaps()).toEqual(['team-a/generated']);
    expect(h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!.data).toEqual({ key: 'value' });
    expect(h.run.watchedTypes()).toEqual(['v1/ConfigMap']);
  });

  it('a policy without synchronize is neither generated for nor watched', async () => {
    const h = start();
    h.namespace('team-a');
    await h.setPolicies([gpol('plain', {})]);
    expect(h.configMaps()).toEqual([]);
    expect(h.run.watchedTypes()).toEqual([]);
  });

  it('restores a modified downstream and ignores the event of its own write', async () => {
    const h = start();
    await h.generated('team-a', gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    await h.modify('team-a', 'generated', { key: 'tampered' });
    expect(h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!.data).toEqual({ key: 'value' });
    const calls = h.generation.calls;
    h.watches.get('v1/ConfigMap')!.update(h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!);
    await h.settle();
    expect(h.generation.calls).toBe(calls);
  });

  it('recreates a deleted downstream', async () => {
    const h = start();
    await h.generated('team-a', gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    await h.remove('team-a', 'generated');
    expect(h.configMaps()).toEqual(['team-a/generated']);
  });

  it('a deleted trigger loses its downstream, and the trigger type is no longer watched once the policy goes', async () => {
    const h = start();
    await h.generated('team-a', gpol('sync', SYNC));
    const gone = await h.generated('team-b', gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    expect(h.run.watchedTriggerTypes()).toEqual(['v1/Namespace']);
    await h.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'team-b' });
    // A metadata-only watch: no kind on the object.
    h.triggerWatches.get('v1/Namespace')!.delete({ metadata: gone.metadata } as KubeObject);
    await h.settle();
    expect(h.configMaps()).toEqual(['team-a/generated']);
    await h.setPolicies([]);
    expect(h.run.watchedTriggerTypes()).toEqual([]);
  });

  it('a trigger with downstream that changes is reconciled (one no longer matching loses it); one without is not', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    const trigger = await h.generated('team-a', policy);
    const other = h.namespace('team-b');
    await h.setPolicies([policy]);
    const calls = h.generation.calls;
    h.triggerWatches.get('v1/Namespace')!.update({ metadata: other.metadata } as KubeObject);
    await h.settle();
    expect(h.generation.calls).toBe(calls);
    h.generation.matches = false;
    h.triggerWatches.get('v1/Namespace')!.update({ metadata: trigger.metadata } as KubeObject);
    await h.settle();
    expect(h.configMaps()).toEqual([]);
  });

  it('what an UpdateRequest generates after the pass is watched and restored from then on', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.setPolicies([policy]);
    expect(h.run.watchedTypes()).toEqual([]);
    const trigger = h.namespace('team-a');
    await h.generation.generate(policy, trigger);
    h.requests!.update(
      updateRequest('sync', { generatedResources: [{ ...CM, name: 'generated', namespace: 'team-a' }] }),
    );
    await h.settle();
    expect(h.run.watchedTypes()).toEqual(['v1/ConfigMap']);
    await h.modify('team-a', 'generated', { key: 'tampered' });
    expect(h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!.data).toEqual({ key: 'value' });
    // The trigger is now known: an UpdateRequest to delete its downstream (it no longer matches) is done.
    h.generation.matches = false;
    const ref = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: trigger.metadata!.uid! };
    h.requests!.update(updateRequest('sync', {}, [{ rule: 'sync', deleteDownstream: true, trigger: ref }]));
    await h.settle();
    expect(h.configMaps()).toEqual([]);
  });

  it('a downstream changed before its type was watched is restored once an UpdateRequest names it', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.setPolicies([policy]);
    await h.generation.generate(policy, h.namespace('team-a'));
    const stored = h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!;
    await h.cluster.replace({ ...stored, data: { key: 'tampered' } });
    h.requests!.delete(
      updateRequest('sync', { generatedResources: [{ ...CM, name: 'generated', namespace: 'team-a' }] }),
    );
    await h.settle();
    expect(h.cluster.find('v1', 'ConfigMap', 'generated', 'team-a')!.data).toEqual({ key: 'value' });
  });

  it("a downstream deleted before its type's watch listed is restored once the watch has listed", async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.setPolicies([policy]);
    const trigger = h.namespace('team-a');
    await h.generation.generate(policy, trigger);
    const ref = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: trigger.metadata!.uid! };
    h.requests!.update(
      updateRequest('sync', { generatedResources: [{ ...CM, name: 'generated', namespace: 'team-a' }] }, [
        { rule: 'sync', deleteDownstream: false, trigger: ref },
      ]),
    );
    await h.settle();
    // Deleted while the new watch was still listing: the watch never sees it go.
    await h.cluster.delete({ ...CM, name: 'generated', namespace: 'team-a' });
    expect(h.configMaps()).toEqual([]);
    h.watches.get('v1/ConfigMap')!.synced!();
    await h.settle();
    expect(h.configMaps()).toEqual(['team-a/generated']);
  });

  it('a downstream deleted before its UpdateRequest was seen is restored through the triggers the request names', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.setPolicies([policy]);
    const trigger = h.namespace('team-a');
    await h.generation.generate(policy, trigger);
    await h.cluster.delete({ ...CM, name: 'generated', namespace: 'team-a' });
    // Named as an admission request names it: the object had no uid yet.
    const ref = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a' };
    h.requests!.delete(
      updateRequest('sync', { generatedResources: [{ ...CM, name: 'generated', namespace: 'team-a' }] }, [
        { rule: 'sync', deleteDownstream: false, trigger: ref },
      ]),
    );
    await h.settle();
    expect(h.configMaps()).toEqual(['team-a/generated']);
  });

  it('a policy updated to another downstream name replaces the old object', async () => {
    const h = start();
    const policy = gpol('sync', SYNC);
    await h.generated('team-a', policy);
    await h.setPolicies([policy]);
    h.generation.names = () => ['renamed'];
    await h.setPolicies([
      { ...policy, policy: { ...policy.policy, spec: { ...(policy.policy.spec as JsonObject), changed: true } } },
    ]);
    expect(h.configMaps()).toEqual(['team-a/renamed']);
  });

  it('synchronize turned off: no longer watched nor restored, the objects stay', async () => {
    const h = start();
    await h.generated('team-a', gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    await h.setPolicies([gpol('sync', { synchronize: { enabled: false } })]);
    expect(h.run.watchedTypes()).toEqual([]);
    expect(h.configMaps()).toEqual(['team-a/generated']);
  });

  it('events are read against the policy as the cache has it now, before its change is handled', async () => {
    const h = start();
    await h.generated('team-a', gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    h.policies = [gpol('sync', { synchronize: { enabled: false } })]; // the change not handled yet
    await h.remove('team-a', 'generated');
    expect(h.configMaps()).toEqual([]);
    h.policies = [];
    // The policy deleted, its change not handled yet: a deleted trigger's downstream is no longer its business.
    const trigger = await h.generated('team-b', gpol('sync', SYNC));
    await h.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'team-b' });
    h.triggerWatches.get('v1/Namespace')!.delete({ metadata: trigger.metadata } as KubeObject);
    await h.settle();
    expect(h.configMaps()).toEqual(['team-b/generated']);
  });

  it('a deleted synchronized policy takes its downstream; one orphaning it leaves it', async () => {
    const h = start();
    h.generation.names = (policy) => [`${policy.name}-cm`];
    const orphan = gpol('orphan', { ...SYNC, orphanDownstreamOnPolicyDelete: { enabled: true } });
    const trigger = await h.generated('team-a', gpol('sync', SYNC));
    await h.generation.generate(orphan, trigger);
    await h.setPolicies([gpol('sync', SYNC), orphan]);
    expect(h.configMaps()).toEqual(['team-a/orphan-cm', 'team-a/sync-cm']);
    await h.setPolicies([orphan]);
    expect(h.configMaps()).toEqual(['team-a/orphan-cm']);
    await h.setPolicies([]);
    expect(h.configMaps()).toEqual(['team-a/orphan-cm']);
    expect(h.run.watchedTypes()).toEqual([]);
  });

  it('a new leader after a crash ends with exactly the expected objects: missing ones created, those of deleted triggers removed', async () => {
    const first = start();
    const policy = gpol('sync', SYNC);
    first.generation.names = () => ['one', 'two'];
    for (const name of ['a', 'b', 'c']) await first.generated(name, policy);
    await first.setPolicies([policy]);
    await first.stop();
    // While no one leads: one of a trigger's two objects deleted, another tampered with, a trigger deleted.
    await first.cluster.delete({ ...CM, name: 'one', namespace: 'a' });
    const tampered = first.cluster.find('v1', 'ConfigMap', 'two', 'c')!;
    await first.cluster.replace({ ...tampered, data: { key: 'tampered' } });
    await first.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'b' });
    const second = start();
    second.generation.names = () => ['one', 'two'];
    for (const object of first.cluster.objects.values()) second.cluster.put(object);
    await second.setPolicies([policy]);
    expect(second.configMaps()).toEqual(['a/one', 'a/two', 'c/one', 'c/two']);
    expect(second.cluster.find('v1', 'ConfigMap', 'two', 'c')!.data).toEqual({ key: 'value' });
  });

  it('a pass stops at the trigger bound and says so', async () => {
    const h = start({ ...GPOL_SYNC_LIMITS, maxTriggersPerPass: 2 });
    for (const name of ['a', 'b', 'c']) await h.generated(name, gpol('sync', SYNC));
    await h.setPolicies([gpol('sync', SYNC)]);
    expect(h.warnings.join('\n')).toMatch(/more than 2 triggers/);
  });
});
