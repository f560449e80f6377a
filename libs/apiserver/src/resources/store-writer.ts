/**
 * The storage's commit points: an object stored under a new resourceVersion or removed for good,
 * with the lifecycle observers told first; deletes with preconditions, finalizers and propagation
 * (orphans lose their owner reference at once, Foreground waits on `foregroundDeletion`).
 */
import type { JsonObject } from '@edict/foundation';
import type { StorageObserver } from '../lifecycle/storage-observer';
import { NAMESPACES } from '../lifecycle/namespace-lifecycle';
import type { ResourceType } from '../registry/resource-type';
import { alreadyExists, conflict, notFound, successStatus } from '../status';
import type { ObjectStore } from '../store/object-store';
import { withoutOwner } from '../store/owner-references';
import { toCoreEvent } from './event-versions';
import { isNoOpUpdate, metadataOf, timestamp, type PreparedCreate } from './prepare';
import { asVersion, storeKey, storeNamespace } from './stored-objects';
import { FOREGROUND_FINALIZER, type DeleteOptions, type WriteOptions, type WriteResult } from './write-options';

export class StoreWriter {
  constructor(
    private readonly store: ObjectStore,
    private readonly observers: readonly StorageObserver[],
    private readonly now: () => Date,
  ) {}

  exists(type: ResourceType, namespace: string | undefined, name: string): boolean {
    return this.store.get(storeKey(type), storeNamespace(type, namespace), name) !== undefined;
  }

  checkCreatable(type: ResourceType, namespace: string | undefined, name: string): void {
    if (type.namespaced) this.requireNamespace(namespace!);
    if (this.exists(type, namespace, name)) {
      throw alreadyExists({ group: type.group, kind: type.plural, name });
    }
  }

  commitCreate(
    type: ResourceType,
    namespace: string | undefined,
    { object, name }: PreparedCreate,
    options: WriteOptions,
  ): WriteResult {
    // Checked again: the state may have moved on while webhooks were called.
    this.checkCreatable(type, namespace, name);
    if (options.dryRun) return { object: asVersion(type, object), code: 201 };
    const stored = this.write(type, object);
    return { object: asVersion(type, stored), code: 201 };
  }

  commitUpdate(type: ResourceType, old: JsonObject, updated: JsonObject, options: WriteOptions): WriteResult {
    const meta = metadataOf(updated);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (meta.deletionTimestamp !== undefined && finalizers.length === 0) {
      // The last finalizer is gone from an object being deleted: it goes now.
      if (!options.dryRun) this.remove(type, updated);
      return { object: asVersion(type, updated), code: 200 };
    }
    if (isNoOpUpdate(old, updated)) return { object: asVersion(type, old), code: 200 };
    if (options.dryRun) return { object: asVersion(type, updated), code: 200 };
    return { object: asVersion(type, this.write(type, updated)), code: 200 };
  }

  commitDelete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions): WriteResult {
    const old = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
    const target = { group: type.group, kind: type.plural, name };
    if (!old) throw notFound(target);
    const meta = metadataOf(old);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw conflict(
        target,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        target,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`,
      );
    }
    const policy = options.propagationPolicy ?? 'Background';
    const hasDependents = policy !== 'Background' && this.store.dependentsOf(String(meta.uid)).length > 0;
    // Orphans lose their reference to the owner at once (what kube's `orphan` finalizer leads to).
    if (policy === 'Orphan' && hasDependents && !options.dryRun) this.orphanDependents(String(meta.uid));
    let finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (policy === 'Foreground' && hasDependents && !finalizers.includes(FOREGROUND_FINALIZER)) {
      finalizers = [...finalizers, FOREGROUND_FINALIZER];
    }
    if (finalizers.length > 0) {
      // Deletion waits for the finalizers: mark the object and keep it.
      if (meta.deletionTimestamp !== undefined && finalizers === meta.finalizers) {
        return { object: asVersion(type, old), code: 202 };
      }
      const marked = {
        ...old,
        metadata: {
          ...meta,
          finalizers,
          deletionTimestamp: meta.deletionTimestamp ?? timestamp(this.now()),
          deletionGracePeriodSeconds: 0,
        },
      };
      if (options.dryRun) return { object: asVersion(type, marked), code: 202 };
      return { object: asVersion(type, this.write(type, marked)), code: 202 };
    }
    if (options.dryRun) return { object: deleteResponse(type, old), code: 200 };
    this.remove(type, old);
    return { object: deleteResponse(type, old), code: 200 };
  }

  /** Removes the owner reference to `ownerUid` from every dependent (what an Orphan delete leaves them). */
  orphanDependents(ownerUid: string): void {
    for (const { groupResource, object } of this.store.dependentsOf(ownerUid)) {
      this.removeOwnerReference(groupResource, object, ownerUid);
    }
  }

  /** Drops one dependent's reference to a removed owner, as the garbage collector does when another owner lives. */
  removeOwnerReference(groupResource: string, object: JsonObject, ownerUid: string): void {
    const orphaned = withoutOwner(object, ownerUid);
    this.store.put(groupResource, {
      ...orphaned,
      metadata: { ...metadataOf(orphaned), resourceVersion: String(this.store.nextResourceVersion()) },
    });
  }

  /** Stores an object under a new resourceVersion; the observers see it first (a CRD is established). */
  private write(type: ResourceType, object: JsonObject): JsonObject {
    let stored: JsonObject = {
      ...toCoreEvent(object),
      metadata: { ...metadataOf(object), resourceVersion: String(this.store.nextResourceVersion()) },
    };
    for (const observer of this.observers) stored = observer.storing?.(type, stored) ?? stored;
    this.store.put(storeKey(type), stored);
    return stored;
  }

  /** Removes an object for good; the observers first take what goes with it (a namespace's contents). */
  private remove(type: ResourceType, object: JsonObject): void {
    for (const observer of this.observers) observer.removing?.(type, object);
    const meta = metadataOf(object);
    const finalState = { ...object, metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) } };
    this.store.remove(storeKey(type), finalState);
  }

  private requireNamespace(namespace: string): void {
    if (!this.store.get(NAMESPACES, '', namespace)) throw notFound({ group: '', kind: 'namespaces', name: namespace });
  }
}

/** Pods and namespaces answer a delete with the object; other types with a success Status. */
function deleteResponse(type: ResourceType, object: JsonObject): JsonObject {
  if (type.group === '' && (type.plural === 'pods' || type.plural === 'namespaces')) return asVersion(type, object);
  const meta = metadataOf(object);
  return successStatus({ group: type.group, kind: type.plural, name: meta.name as string }, meta.uid as string);
}
