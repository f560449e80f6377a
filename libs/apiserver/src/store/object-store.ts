/**
 * The storage layer: objects by group resource and namespace/name, one global resourceVersion
 * counter (like etcd's revision), and a bounded log of change events that watches replay from.
 * Stored objects are never mutated in place: every write stores a fresh object, so readers may
 * share them without copying.
 */
import type { JsonObject } from '@edict/engine';

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
  private readonly history: ChangeEvent[] = [];
  /** Events at or below this revision are gone from history. */
  private compactedRevision = 1;
  private readonly listeners = new Set<ChangeListener>();
  private readonly historyLimit: number;

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

  /** Namespaces that have at least one object of any resource in them. */
  groupResources(): string[] {
    return [...this.collections.keys()];
  }

  /** Stores an object whose metadata.resourceVersion was set from `nextResourceVersion()`. */
  put(groupResource: string, object: JsonObject): void {
    const { name, namespace } = metadataOf(object);
    let collection = this.collections.get(groupResource);
    if (!collection) this.collections.set(groupResource, (collection = new Map()));
    const previous = collection.get(objectKey(namespace, name));
    collection.set(objectKey(namespace, name), object);
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
    const collection = this.collections.get(groupResource);
    if (!collection?.delete(objectKey(namespace, name))) return;
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
    this.collections.delete(groupResource);
    return objects;
  }

  /**
   * Change events after `resourceVersion` for one group resource, or `undefined` when that
   * version has been compacted away (the caller answers 410 Expired).
   */
  changesSince(resourceVersion: number, groupResource: string): ChangeEvent[] | undefined {
    if (resourceVersion < this.compactedRevision) return undefined;
    return this.history.filter(
      (event) => event.resourceVersion > resourceVersion && event.groupResource === groupResource,
    );
  }

  /** Forgets history up to `resourceVersion` (default: everything so far), like etcd compaction. */
  compact(resourceVersion = this.revision): void {
    this.compactedRevision = Math.max(this.compactedRevision, Math.min(resourceVersion, this.revision));
    const keep = this.history.findIndex((event) => event.resourceVersion > this.compactedRevision);
    this.history.splice(0, keep < 0 ? this.history.length : keep);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private record(event: ChangeEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedRevision = Math.max(this.compactedRevision, dropped[dropped.length - 1]!.resourceVersion);
    }
    for (const listener of this.listeners) listener(event);
  }
}
