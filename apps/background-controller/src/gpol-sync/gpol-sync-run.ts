/**
 * One leadership's synchronize work for GeneratingPolicies (Kyverno's WatchManager and the
 * GeneratingPolicy half of its policy controller), without Nest so that specs drive it:
 *  - every policy change is handled in order per policy: a synchronized policy created (each
 *    installed policy counts as created when leadership starts, which is Kyverno's cache restore)
 *    or updated gets a pass that reconciles every trigger it matches or generated for; one that
 *    stops synchronizing is no longer watched (its objects stay); a deleted one takes its data;
 *  - the types its downstream objects have are watched (one watch per type, shared between
 *    policies, as Kyverno's dynamic watchers): a downstream object modified or deleted has its
 *    trigger reconciled (which restores it), a clone source modified or deleted updates or deletes
 *    its synchronized copies.
 * Every step reads the cluster and is idempotent, so work repeated by a new leader after a crash,
 * or by two leaders at once, converges on the same objects. Bounded: watched types, types per
 * policy, triggers per pass, attempts per item, and the record of what was written.
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { errorMessage, type KubeObject } from '@edict/foundation';
import type { ServedType } from '@edict/kube';
import { WorkQueue } from '@edict/work-queue';
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '@edict/admission';
import type { ClusterObjects, ObjectRef } from '../update-requests/cluster-objects';
import { DownstreamRecord } from './downstream-record';
import { changeKey, GpolChangeTracker, type GpolChange } from './gpol-changes';
import {
  candidateOwners,
  gpolKey,
  isGpolDownstream,
  ownedBy,
  triggerOf,
  typeKey,
  type GpolRef,
  type TriggerRef,
} from './gpol-downstream';
import type { GpolGeneration } from './gpol-generation';
import { GpolSyncReconciler, type DownstreamType } from './gpol-sync-reconciler';
import { triggerTypes } from './trigger-types';

export interface GpolSyncLimits {
  /** Types watched at once, all policies together. */
  readonly maxWatchedTypes: number;
  /** Downstream types one policy may have watched. */
  readonly maxTypesPerPolicy: number;
  /** Triggers one pass over a policy reconciles. */
  readonly maxTriggersPerPass: number;
  /** Downstream objects remembered (see DownstreamRecord). */
  readonly maxRecordedObjects: number;
  /** Attempts of one work item before it is given up. */
  readonly maxAttempts: number;
  readonly workers: number;
}

export const GPOL_SYNC_LIMITS: GpolSyncLimits = Object.freeze({
  maxWatchedTypes: 64,
  maxTypesPerPolicy: 16,
  maxTriggersPerPass: 10_000,
  maxRecordedObjects: 50_000,
  maxAttempts: 8,
  workers: 2,
});

export interface TypeWatchHandlers {
  add?(object: KubeObject): void;
  update(object: KubeObject): void;
  delete(object: KubeObject): void;
  /** Called once the watch's first list has reached the handlers (from then on no deletion is missed). */
  synced?(): void;
}

export interface GpolSyncRunDeps {
  readonly cluster: ClusterObjects;
  readonly generation: GpolGeneration;
  /** The installed policies: those that compile, and the keys of all (see GpolChangeTracker). */
  policies(): { compiled: readonly CompiledGeneratingPolicy[]; installed: ReadonlySet<string> };
  /** Calls `listener` after the installed policies changed; returns its removal. */
  onPoliciesChange(listener: () => void): () => void;
  /** Watches the UpdateRequests (their updates and deletions); returns its stop. */
  watchUpdateRequests(handlers: TypeWatchHandlers): () => Promise<void>;
  /** Every served type (discovery). */
  servedTypes(): Promise<ServedType[]>;
  /** Watches every object of a type; returns its stop. */
  watch(type: DownstreamType, handlers: TypeWatchHandlers): () => Promise<void>;
  /** Watches the updates and deletions of a trigger type (its objects' metadata only); returns its stop. */
  watchTriggers(type: DownstreamType, handlers: TypeWatchHandlers): () => Promise<void>;
  log(message: string): void;
  warn(message: string): void;
}

const POLICY = 'policy';
const TRIGGER = 'trigger';
const SOURCE = 'source';
const LEARN = 'learn';
const VERIFY = 'verify';

/** What an UpdateRequest generated, and the triggers it generated for. */
interface Learned {
  readonly generated: readonly ObjectRef[];
  /** A trigger named without its uid (an admission request's object may have none yet) is read for it. */
  readonly triggers: ReadonlyArray<Omit<TriggerRef, 'uid'> & { readonly uid?: string }>;
}

export class GpolSyncRun {
  private readonly tracker = new GpolChangeTracker();
  private readonly record: DownstreamRecord;
  private readonly reconciler: GpolSyncReconciler;
  private readonly queue: WorkQueue;
  private readonly pending = new Map<string, GpolChange[]>();
  private readonly sources = new Map<string, { object: KubeObject; deleted: boolean }>();
  private readonly learned = new Map<string, Learned>();
  /** Downstream objects learnt while their type's watch had not listed yet, by type: checked once it has. */
  private readonly unverified = new Map<string, KubeObject[]>();
  private readonly attempts = new Map<string, number>();
  /** Watched types: their stop and the policies using them. */
  private readonly watches = new Map<string, { stop: () => Promise<void>; policies: Set<string>; synced: boolean }>();
  private readonly policyTypes = new Map<string, Map<string, DownstreamType>>();
  /** Watched trigger types (deletions only): their stop and the policies using them. */
  private readonly triggerWatches = new Map<string, { stop: () => Promise<void>; policies: Set<string> }>();
  private readonly policyTriggerTypes = new Map<string, Set<string>>();

  constructor(
    private readonly deps: GpolSyncRunDeps,
    private readonly signal: AbortSignal,
    private readonly limits: GpolSyncLimits = GPOL_SYNC_LIMITS,
  ) {
    this.record = new DownstreamRecord(limits.maxRecordedObjects);
    this.reconciler = new GpolSyncReconciler({
      cluster: deps.cluster,
      generation: deps.generation,
      record: this.record,
      log: deps.log,
    });
    this.queue = new WorkQueue((key) => this.handle(key), limits.workers);
  }

  /** Runs until the signal aborts, then stops every watch. */
  async run(): Promise<void> {
    const stopped = new Promise<void>((resolve) =>
      this.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    const observe = () => {
      if (this.signal.aborted) return;
      const { compiled, installed } = this.deps.policies();
      for (const change of this.tracker.observe(compiled, installed)) this.enqueueChange(change);
    };
    const off = this.deps.onPoliciesChange(observe);
    const stopRequests = this.deps.watchUpdateRequests({
      update: (request) => this.onUpdateRequest(request),
      delete: (request) => this.onUpdateRequest(request),
    });
    observe();
    await stopped;
    off();
    await stopRequests().catch(() => undefined);
    await this.queue.stop();
    const watches = [...this.watches.values(), ...this.triggerWatches.values()];
    await Promise.all(watches.map((watch) => watch.stop().catch(() => undefined)));
    this.watches.clear();
    this.triggerWatches.clear();
    this.record.clear();
    this.unverified.clear();
  }

  /** Resolves once no work is queued or running (for specs). */
  idle(): Promise<void> {
    return this.queue.drained();
  }

  /** The downstream types watched now (for specs and logs). */
  watchedTypes(): string[] {
    return [...this.watches.keys()];
  }

  /** The trigger types whose deletions are watched now (for specs and logs). */
  watchedTriggerTypes(): string[] {
    return [...this.triggerWatches.keys()];
  }

  private enqueueChange(change: GpolChange): void {
    const key = `${POLICY}\0${changeKey(change)}`;
    const changes = this.pending.get(key) ?? [];
    changes.push(change);
    this.pending.set(key, changes);
    this.queue.add(key);
  }

  private async handle(key: string): Promise<void> {
    if (this.signal.aborted) return;
    try {
      const [kind] = key.split('\0', 1);
      if (kind === POLICY) await this.handlePolicy(key);
      else if (kind === TRIGGER) await this.handleTrigger(key);
      else if (kind === SOURCE) await this.handleSource(key);
      else if (kind === LEARN) await this.handleLearn(key);
      else if (kind === VERIFY) await this.handleVerify(key);
      this.attempts.delete(key);
    } catch (error) {
      if (this.signal.aborted) return;
      const attempts = (this.attempts.get(key) ?? 0) + 1;
      if (attempts < this.limits.maxAttempts) {
        this.attempts.set(key, attempts);
        this.deps.warn(`GeneratingPolicy synchronize (${describeKey(key)}): ${errorMessage(error)}; retrying`);
        throw error; // the queue retries it after a backoff
      }
      this.attempts.delete(key);
      this.pending.get(key)?.shift();
      this.sources.delete(key);
      this.deps.warn(
        `GeneratingPolicy synchronize (${describeKey(key)}): giving up after ${attempts} attempts: ${errorMessage(error)}`,
      );
    }
  }

  private async handlePolicy(key: string): Promise<void> {
    const changes = this.pending.get(key);
    const change = changes?.[0];
    if (!changes || !change) return;
    await this.apply(change);
    changes.shift();
    if (changes.length === 0) this.pending.delete(key);
    else this.queue.add(key);
  }

  private async apply(change: GpolChange): Promise<void> {
    if (change.type === 'deleted') {
      const policy = change.previous;
      const deleted = await this.reconciler.policyDeleted(policy, this.typesOf(policy));
      if (deleted > 0) this.deps.log(`${describe(policy)} deleted: deleted ${deleted} downstream object(s)`);
      await this.unwatch(policy);
      return;
    }
    if (change.type === 'updated' && change.previous.synchronize && !change.policy.synchronize) {
      // Kyverno stops watching; what was generated stays.
      await this.unwatch(change.previous);
      return;
    }
    if (change.policy.synchronize) await this.pass(change.policy);
  }

  /**
   * Reconciles every trigger the policy generated for, as Kyverno's policy controller does when a
   * synchronized policy is created or changed: the triggers of its downstream objects found by
   * their labels, and, for the types not known yet (a new leader knows none), those of the
   * triggers it matches whose downstream exists (Kyverno's cache restore: a dry run, nothing
   * created for a trigger that has none, which is left to its UpdateRequests). Then what is found
   * of the types learnt for triggers not seen (deleted or changed while no one led) is reconciled.
   */
  private async pass(policy: CompiledGeneratingPolicy): Promise<void> {
    const triggers = new Map<string, TriggerRef>();
    let complete = true;
    const add = (ref: TriggerRef | undefined): boolean => {
      if (!ref || triggers.has(ref.uid)) return true;
      if (triggers.size >= this.limits.maxTriggersPerPass) return (complete = false);
      triggers.set(ref.uid, ref);
      return true;
    };
    for (const object of await this.reconciler.find(policy, this.typesOf(policy))) add(triggerOf(object));
    const types = triggerTypes(policy.matchConstraints, await this.deps.servedTypes()).filter(
      (type) => !policy.namespace || type.namespaced, // a namespaced policy sees its own namespace only
    );
    this.watchTriggers(policy, types);
    let scanned = 0;
    for (const type of types) {
      const request = {
        apiVersion: type.apiVersion,
        kind: type.kind,
        ...(policy.namespace ? { namespace: policy.namespace } : {}),
      };
      for await (const page of this.deps.cluster.list(request)) {
        for (const trigger of page) {
          const ref = refOf(trigger);
          if (!ref || triggers.has(ref.uid)) continue;
          if (this.signal.aborted) return;
          if (++scanned > this.limits.maxTriggersPerPass) complete = false;
          if (!complete) break;
          const restored = await this.reconciler.restoreTrigger(policy, trigger);
          if (restored) {
            this.watchTypes(policy, restored);
            add(ref);
          }
        }
        if (!complete) break;
      }
    }
    for (const object of await this.reconciler.find(policy, this.typesOf(policy))) add(triggerOf(object));
    if (!complete) {
      this.deps.warn(
        `${describe(policy)}: more than ${this.limits.maxTriggersPerPass} triggers; the rest are not synchronized`,
      );
    }
    for (const ref of triggers.values()) {
      if (this.signal.aborted) return;
      await this.reconcile(policy, ref);
    }
  }

  private async reconcile(policy: CompiledGeneratingPolicy, ref: TriggerRef): Promise<void> {
    const outcome = await this.reconciler.reconcileTrigger(policy, ref, this.typesOf(policy));
    if (outcome.deleted > 0) {
      this.deps.log(`${describe(policy)}: deleted ${outcome.deleted} downstream object(s) of ${ref.kind} ${ref.name}`);
    }
    this.watchTypes(policy, outcome.downstream);
  }

  private async handleTrigger(key: string): Promise<void> {
    const [, policyKey = '', refText = '{}'] = key.split('\0');
    const policy = this.current(policyKey);
    if (!policy?.synchronize) return;
    await this.reconcile(policy, JSON.parse(refText) as TriggerRef);
  }

  private async handleSource(key: string): Promise<void> {
    const event = this.sources.get(key);
    if (!event) return;
    this.sources.delete(key);
    const synchronized = (copy: KubeObject) => this.synchronizedOwner(copy) !== undefined;
    try {
      if (event.deleted) {
        const deleted = await this.reconciler.sourceDeleted(event.object, synchronized);
        if (deleted > 0)
          this.deps.log(`clone source ${describeObject(event.object)} deleted: deleted ${deleted} copies`);
      } else {
        const updated = await this.reconciler.sourceChanged(event.object, synchronized);
        if (updated > 0)
          this.deps.log(`clone source ${describeObject(event.object)} changed: updated ${updated} copies`);
      }
    } catch (error) {
      if (!this.sources.has(key)) this.sources.set(key, event); // a newer event wins; else retry this one
      throw error;
    }
  }

  /**
   * The installed policy under `key` as the cache has it now: events of other watches are read
   * against the latest policy (sync just turned off wins), not the last one a pass handled.
   */
  private current(key: string): CompiledGeneratingPolicy | undefined {
    const { compiled, installed } = this.deps.policies();
    const found = compiled.find((policy) => gpolKey(policy) === key);
    // One installed that no longer compiles keeps its last valid version, as the tracker does.
    return found ?? (installed.has(key) ? this.tracker.get(key) : undefined);
  }

  /** The synchronized policy `object` is the downstream of, if any. */
  private synchronizedOwner(object: KubeObject): CompiledGeneratingPolicy | undefined {
    for (const owner of candidateOwners(object)) {
      const policy = this.current(gpolKey(owner));
      if (policy?.synchronize && ownedBy(object, policy)) return policy;
    }
    return undefined;
  }

  /**
   * A GeneratingPolicy's UpdateRequest (`cel-generate`) that its generation has written to: what
   * it generated is watched and known from then on (Kyverno's generate controller hands it to its
   * watch manager the same way), and a rule context asking to delete downstream (a trigger deleted
   * or no longer matching) has its trigger reconciled.
   */
  private onUpdateRequest(request: KubeObject): void {
    if (this.signal.aborted) return;
    const spec = (request as { spec?: UpdateRequestSpec }).spec;
    if (spec?.requestType !== 'cel-generate' || typeof spec.policy !== 'string') return;
    const policy = this.current(spec.policy);
    if (!policy?.synchronize) return;
    const triggers: Array<Learned['triggers'][number]> = [];
    for (const { deleteDownstream, trigger } of spec.ruleContext ?? []) {
      if (!trigger?.name || !trigger.apiVersion || !trigger.kind) continue;
      const { apiVersion, kind, namespace, name, uid } = trigger;
      const named = { apiVersion, kind, name, ...(namespace ? { namespace } : {}) };
      if (!deleteDownstream) triggers.push({ ...named, ...(uid ? { uid } : {}) });
      else if (uid) this.queue.add(`${TRIGGER}\0${spec.policy}\0${JSON.stringify({ ...named, uid })}`);
    }
    const status = (request as { status?: { generatedResources?: UpdateRequestResourceSpec[] } }).status;
    const generated = (status?.generatedResources ?? []).flatMap((spec): ObjectRef[] =>
      spec.apiVersion && spec.kind && spec.name
        ? [
            {
              apiVersion: spec.apiVersion,
              kind: spec.kind,
              name: spec.name,
              ...(spec.namespace ? { namespace: spec.namespace } : {}),
            },
          ]
        : [],
    );
    if (generated.length === 0) return;
    const key = `${LEARN}\0${spec.policy}\0${request.metadata?.uid ?? ''}`;
    this.learned.set(key, { generated, triggers });
    this.queue.add(key);
  }

  /**
   * Reads what an UpdateRequest generated and watches its types; an object not as the leader last
   * left it (unknown yet, or changed since the generation) has its trigger reconciled, which
   * restores it and records it.
   */
  private async handleLearn(key: string): Promise<void> {
    const learned = this.learned.get(key);
    this.learned.delete(key);
    const [, policyKey = ''] = key.split('\0');
    const policy = this.current(policyKey);
    if (!learned || !policy?.synchronize) return;
    const objects: KubeObject[] = [];
    let missing = false;
    for (const ref of learned.generated.slice(0, this.limits.maxTypesPerPolicy * 16)) {
      const object = await this.deps.cluster.get(ref);
      if (!object) missing = true;
      else if (ownedBy(object, policy)) objects.push(typed(object, ref));
    }
    // Deleted before anyone watched its type: its triggers are reconciled, which restores it.
    if (missing) {
      for (const named of learned.triggers) {
        const uid = named.uid ?? (await this.deps.cluster.get(named))?.metadata?.uid;
        if (uid) this.queue.add(`${TRIGGER}\0${policyKey}\0${JSON.stringify({ ...named, uid })}`);
      }
    }
    this.watchTypes(policy, objects);
    for (const object of objects) {
      if (!this.record.unchanged(object)) this.enqueueTriggerOf(object);
      // Its watch may not have listed yet: a deletion before that list would go unseen.
      const type = typeKey(object);
      if (this.watches.get(type)?.synced !== false) continue;
      const pending = this.unverified.get(type) ?? [];
      if (pending.length < this.limits.maxTriggersPerPass) pending.push(object);
      this.unverified.set(type, pending);
    }
  }

  /** A type's watch has listed: each object learnt before that and gone since has its trigger reconciled. */
  private async handleVerify(key: string): Promise<void> {
    const [, type = ''] = key.split('\0');
    const objects = this.unverified.get(type) ?? [];
    this.unverified.delete(type);
    for (const object of objects) {
      if (this.signal.aborted) return;
      if (!(await this.deps.cluster.get(objectRefOf(object)))) this.enqueueTriggerOf(object);
    }
  }

  /**
   * A downstream object seen first (a watch's first list, or created): one the leader does not know
   * as it is (it may have been changed before the watch started) has its trigger reconciled.
   */
  private onAdd(object: KubeObject): void {
    if (this.signal.aborted || !isGpolDownstream(object)) return;
    if (!this.record.unchanged(object)) this.enqueueTriggerOf(object);
  }

  private onUpdate(object: KubeObject): void {
    if (this.signal.aborted) return;
    if (isGpolDownstream(object) && !this.record.unchanged(object)) this.enqueueTriggerOf(object);
    const uid = object.metadata?.uid;
    if (uid && this.record.isSource(uid)) this.enqueueSource(object, false);
  }

  private onDelete(object: KubeObject): void {
    if (this.signal.aborted) return;
    const uid = object.metadata?.uid;
    if (isGpolDownstream(object)) {
      if (uid) this.record.forget(uid);
      this.enqueueTriggerOf(object);
    }
    if (uid && this.record.isSource(uid)) this.enqueueSource(object, true);
  }

  private enqueueTriggerOf(object: KubeObject): void {
    const policy = this.synchronizedOwner(object);
    const ref = triggerOf(object);
    if (!policy || !ref) return;
    this.queue.add(`${TRIGGER}\0${gpolKey(policy)}\0${JSON.stringify(ref)}`);
  }

  private enqueueSource(object: KubeObject, deleted: boolean): void {
    const key = `${SOURCE}\0${typeKey(object)}\0${object.metadata?.namespace ?? ''}\0${object.metadata?.name ?? ''}\0${object.metadata?.uid ?? ''}`;
    this.sources.set(key, { object, deleted });
    this.queue.add(key);
  }

  private typesOf(policy: GpolRef): DownstreamType[] {
    return [...(this.policyTypes.get(gpolKey(policy))?.values() ?? [])];
  }

  /** Watches the types of the objects for the policy, within the bounds. */
  private watchTypes(policy: CompiledGeneratingPolicy, objects: readonly KubeObject[]): void {
    const policyKey = gpolKey(policy);
    for (const object of objects) {
      if (!object.apiVersion || !object.kind) continue;
      const type = { apiVersion: object.apiVersion, kind: object.kind };
      const key = typeKey(type);
      const types = this.policyTypes.get(policyKey) ?? new Map<string, DownstreamType>();
      if (!types.has(key)) {
        if (types.size >= this.limits.maxTypesPerPolicy) {
          this.deps.warn(
            `${describe(policy)}: more than ${this.limits.maxTypesPerPolicy} downstream types; ${key} is not watched`,
          );
          continue;
        }
        types.set(key, type);
        this.policyTypes.set(policyKey, types);
      }
      let watch = this.watches.get(key);
      if (!watch) {
        if (this.watches.size + this.triggerWatches.size >= this.limits.maxWatchedTypes) {
          this.deps.warn(`more than ${this.limits.maxWatchedTypes} types watched; ${key} is not watched`);
          continue;
        }
        const entry: { stop: () => Promise<void>; policies: Set<string>; synced: boolean } = {
          stop: async () => undefined,
          policies: new Set<string>(),
          synced: false,
        };
        entry.stop = this.deps.watch(type, {
          add: (added) => this.onAdd(typed(added, type)),
          update: (changed) => this.onUpdate(typed(changed, type)),
          delete: (gone) => this.onDelete(typed(gone, type)),
          synced: () => {
            entry.synced = true;
            if (this.unverified.has(key)) this.queue.add(`${VERIFY}\0${key}`);
          },
        });
        watch = entry;
        this.watches.set(key, watch);
      }
      watch.policies.add(policyKey);
    }
  }

  /**
   * Watches the policy's trigger types: a trigger deleted, updated in place or no longer matching
   * has its downstream reconciled (Kyverno's UpdateRequests from the trigger's admission, with or
   * without deleteDownstream; here also when the request was never made).
   */
  private watchTriggers(policy: CompiledGeneratingPolicy, types: readonly DownstreamType[]): void {
    const policyKey = gpolKey(policy);
    const keys = this.policyTriggerTypes.get(policyKey) ?? new Set<string>();
    this.policyTriggerTypes.set(policyKey, keys);
    for (const type of types) {
      const key = typeKey(type);
      let watch = this.triggerWatches.get(key);
      if (!watch) {
        if (this.watches.size + this.triggerWatches.size >= this.limits.maxWatchedTypes) {
          this.deps.warn(`more than ${this.limits.maxWatchedTypes} types watched; trigger type ${key} is not watched`);
          continue;
        }
        const stop = this.deps.watchTriggers(type, {
          update: (object) => this.onTriggerChanged(key, typed(object, type), false),
          delete: (object) => this.onTriggerChanged(key, typed(object, type), true),
        });
        watch = { stop, policies: new Set() };
        this.triggerWatches.set(key, watch);
      }
      watch.policies.add(policyKey);
      keys.add(key);
    }
  }

  /**
   * A trigger with downstream updated (in place, or so that it no longer matches) or deleted: it is
   * reconciled. One without downstream is its UpdateRequests' business.
   */
  private onTriggerChanged(key: string, object: KubeObject, deleted: boolean): void {
    if (this.signal.aborted) return;
    const ref = refOf(object);
    if (!ref || (!deleted && !this.record.isTrigger(ref.uid))) return;
    for (const policyKey of this.triggerWatches.get(key)?.policies ?? []) {
      const policy = this.current(policyKey);
      if (!policy?.synchronize) continue;
      if (policy.namespace && ref.namespace !== policy.namespace) continue;
      this.queue.add(`${TRIGGER}\0${policyKey}\0${JSON.stringify(ref)}`);
    }
  }

  /** Stops watching for the policy; a type no other policy uses is no longer watched. */
  private async unwatch(policy: GpolRef): Promise<void> {
    const policyKey = gpolKey(policy);
    for (const key of this.policyTriggerTypes.get(policyKey) ?? []) {
      const watch = this.triggerWatches.get(key);
      if (!watch) continue;
      watch.policies.delete(policyKey);
      if (watch.policies.size > 0) continue;
      this.triggerWatches.delete(key);
      await watch.stop().catch((error) => this.deps.warn(`stopping the watch of ${key}: ${errorMessage(error)}`));
    }
    this.policyTriggerTypes.delete(policyKey);
    const types = this.policyTypes.get(policyKey);
    this.policyTypes.delete(policyKey);
    for (const key of types?.keys() ?? []) {
      const watch = this.watches.get(key);
      if (!watch) continue;
      watch.policies.delete(policyKey);
      if (watch.policies.size > 0) continue;
      this.watches.delete(key);
      this.unverified.delete(key);
      await watch.stop().catch((error) => this.deps.warn(`stopping the watch of ${key}: ${errorMessage(error)}`));
    }
  }
}

function objectRefOf(object: KubeObject): ObjectRef {
  const namespace = object.metadata?.namespace;
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    name: object.metadata?.name ?? '',
    ...(namespace ? { namespace } : {}),
  };
}

/** The object with its type set (items of a list or watch may come without it). */
function typed(object: KubeObject, type: Pick<DownstreamType, 'apiVersion' | 'kind'>): KubeObject {
  return { ...object, apiVersion: type.apiVersion, kind: type.kind };
}

function refOf(object: KubeObject): TriggerRef | undefined {
  const uid = object.metadata?.uid;
  const name = object.metadata?.name;
  if (!uid || !name || !object.apiVersion || !object.kind) return undefined;
  const namespace = object.metadata?.namespace;
  return { apiVersion: object.apiVersion, kind: object.kind, name, uid, ...(namespace ? { namespace } : {}) };
}

function describe(policy: CompiledGeneratingPolicy): string {
  return `${policy.kind} ${gpolKey(policy)}`;
}

function describeObject(object: KubeObject): string {
  const namespace = object.metadata?.namespace;
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${object.metadata?.name ?? ''}`;
}

function describeKey(key: string): string {
  return key.split('\0').join(' ');
}
