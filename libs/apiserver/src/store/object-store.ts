/**
 * The storage layer: objects by group resource and namespace/name, one global resourceVersion
 * counter (like etcd's revision), and a bounded log of change events that watches replay from.
 * Stored objects are never mutated in place: every write stores a fresh object, so readers may
 * share them without copying. Objects are indexed by the uids their `metadata.ownerReferences` name,
 * so that finding an owner's dependents (garbage collection, orphaning) reads no other object.
 */
import type { JsonObject } from '@edict/foundation';
import { ownerUidsOf } from './owner-references';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent {
  readonly resourceVersion: number;
  readonly type: ChangeType;
  /** `group/plural`, shared by all versions of a resource. */
  readonly groupResource: string;
  readonly namespace: string;
  readonly object: JsonObject;
  /** The object before a MODIFIED change, so selector watches can see it leave or enter. */
  readonly previous?: JsonObject;
}

export type ChangeListener = (event: ChangeEvent) => void;

/** A stored object that names an owner in its `metadata.ownerReferences`. */
export interface Dependent {
  readonly groupResource: string;
  readonly object: JsonObject;
}

export interface ObjectStoreOptions {
  /** How many change events are retained for watches that resume from a resourceVersion. */
  readonly historyLimit?: number;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function metadataOf(object: JsonObject): { name: string; namespace: string } {
  const metadata = object.metadata as JsonObject;
  return { name: metadata.name as string, namespace: (metadata.namespace as string | undefined) ?? '' };
}

export class ObjectStore {
  private revision = 1;
  private readonly collections = new Map<string, Map<string, JsonObject>>();
  /** Retained change events are `history[historyStart..]`; the slots before are cut in batches, not per write. */
  private readonly history: ChangeEvent[] = [];
  private historyStart = 0;
  /** Events at or below this revision are gone from history. */
  private compactedRevision = 1;
  private readonly listeners = new Set<ChangeListener>();
  private readonly historyLimit: number;
  /** Owner uid → group resource → keys of the objects referencing it. */
  private readonly dependents = new Map<string, Map<string, Set<string>>>();

  constructor(options: ObjectStoreOptions = {}) {
    this.historyLimit = options.historyLimit ?? 10_000;
  }

  get resourceVersion(): number {
    return this.revision;
  }

  /** The oldest revision a watch may resume from. */
  get oldestResumableVersion(): number {
    return this.compactedRevision;
  }

  /** Reserves the next revision for a write. */
  nextResourceVersion(): number {
    return ++this.revision;
  }

  get(groupResource: string, namespace: string, name: string): JsonObject | undefined {
    return this.collections.get(groupResource)?.get(objectKey(namespace, name));
  }

  /** Objects of a resource, optionally in one namespace, ordered by namespace then name. */
  list(groupResource: string, namespace?: string): JsonObject[] {
    const collection = this.collections.get(groupResource);
    if (!collection) return [];
    const keys = [...collection.keys()].sort();
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    return keys.filter((key) => prefix === undefined || key.startsWith(prefix)).map((key) => collection.get(key)!);
  }

  /** The group resources that have had an object stored. */
  groupResources(): string[] {
    return [...this.collections.keys()];
  }

  /** Every stored object whose ownerReferences name `ownerUid`; within a resource, in `list` order. */
  dependentsOf(ownerUid: string): Dependent[] {
    const byResource = this.dependents.get(ownerUid);
    if (!byResource) return [];
    const found: Dependent[] = [];
    for (const [groupResource, keys] of byResource) {
      const collection = this.collections.get(groupResource)!;
      for (const key of [...keys].sort()) found.push({ groupResource, object: collection.get(key)! });
    }
    return found;
  }

  /** Stores an object whose metadata.resourceVersion was set from `nextResourceVersion()`. */
  put(groupResource: string, object: JsonObject): void {
    const { name, namespace } = metadataOf(object);
    let collection = this.collections.get(groupResource);
    if (!collection) this.collections.set(groupResource, (collection = new Map()));
    const key = objectKey(namespace, name);
    const previous = collection.get(key);
    collection.set(key, object);
    if (previous) this.unindex(groupResource, key, previous);
    this.index(groupResource, key, object);
    this.record({
      resourceVersion: Number((object.metadata as JsonObject).resourceVersion),
      type: previous ? 'MODIFIED' : 'ADDED',
      groupResource,
      namespace,
      object,
      ...(previous ? { previous } : {}),
    });
  }

  /** Removes an object; `finalState` (with a fresh resourceVersion) is what the DELETED event carries. */
  remove(groupResource: string, finalState: JsonObject): void {
    const { name, namespace } = metadataOf(finalState);
    const key = objectKey(namespace, name);
    const collection = this.collections.get(groupResource);
    const stored = collection?.get(key);
    if (!stored) return;
    collection!.delete(key);
    this.unindex(groupResource, key, stored);
    this.record({
      resourceVersion: Number((finalState.metadata as JsonObject).resourceVersion),
      type: 'DELETED',
      groupResource,
      namespace,
      object: finalState,
    });
  }

  /** Drops every object of a resource without events (a CRD going away takes its objects along). */
  dropResource(groupResource: string): JsonObject[] {
    const objects = this.list(groupResource);
    for (const object of objects) {
      const { name, namespace } = metadataOf(object);
      this.unindex(groupResource, objectKey(namespace, name), object);
    }
    this.collections.delete(groupResource);
    return objects;
  }

  /**
   * Change events after `resourceVersion` for one group resource, or `undefined` when that
   * version has been compacted away (the caller answers 410 Expired).
   */
  changesSince(resourceVersion: number, groupResource: string): ChangeEvent[] | undefined {
    if (resourceVersion < this.compactedRevision) return undefined;
    const changes: ChangeEvent[] = [];
    for (let index = this.historyStart; index < this.history.length; index++) {
      const event = this.history[index]!;
      if (event.resourceVersion > resourceVersion && event.groupResource === groupResource) changes.push(event);
    }
    return changes;
  }

  /** Forgets history up to `resourceVersion` (default: everything so far), like etcd compaction. */
  compact(resourceVersion = this.revision): void {
    this.compactedRevision = Math.max(this.compactedRevision, Math.min(resourceVersion, this.revision));
    let first = this.historyStart;
    while (first < this.history.length && this.history[first]!.resourceVersion <= this.compactedRevision) first++;
    this.dropHistoryBefore(first);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private index(groupResource: string, key: string, object: JsonObject): void {
    for (const uid of ownerUidsOf(object)) {
      let byResource = this.dependents.get(uid);
      if (!byResource) this.dependents.set(uid, (byResource = new Map()));
      let keys = byResource.get(groupResource);
      if (!keys) byResource.set(groupResource, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(groupResource: string, key: string, object: JsonObject): void {
    for (const uid of ownerUidsOf(object)) {
      const byResource = this.dependents.get(uid);
      const keys = byResource?.get(groupResource);
      if (!keys?.delete(key) || keys.size > 0) continue;
      byResource!.delete(groupResource);
      if (byResource!.size === 0) this.dependents.delete(uid);
    }
  }

  private record(event: ChangeEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyLimit) {
      const first = this.history.length - this.historyLimit;
      this.compactedRevision = Math.max(this.compactedRevision, this.history[first - 1]!.resourceVersion);
      this.dropHistoryBefore(first);
    }
    for (const listener of this.listeners) listener(event);
  }

  /** Forgets the events before `index`; the array is cut once the dead slots outnumber the live ones. */
  private dropHistoryBefore(index: number): void {
    this.historyStart = index;
    if (this.historyStart * 2 < this.history.length) return;
    this.history.splice(0, this.historyStart);
    this.historyStart = 0;
  }
}
