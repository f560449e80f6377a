/**
 * The informer's store: objects by namespace/name, plus optional indexes (index name → value →
 * keys). Objects are shared with callers, not copied: treat them as read-only.
 */
import type { KubeObject, ObjectHeader } from '@edict/foundation';

/** Maps an object to the index values it is filed under. */
export type IndexFunction<T> = (object: T) => readonly string[];

export function objectKey(object: ObjectHeader): string {
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  return namespace ? `${namespace}/${name}` : name;
}

export class ObjectCache<T extends ObjectHeader = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly indexers: Readonly<Record<string, IndexFunction<T>>> = {}) {
    for (const name of Object.keys(indexers)) this.indexes.set(name, new Map());
  }

  get size(): number {
    return this.objects.size;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.objects.get(key);
  }

  list(namespace?: string): T[] {
    const all = [...this.objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  keys(): IterableIterator<string> {
    return this.objects.keys();
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (!index) throw new Error(`no index named "${indexName}"`);
    return [...(index.get(value) ?? [])].map((key) => this.objects.get(key)!).filter(Boolean);
  }

  /** Stores the object; returns the one it replaced. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const previous = this.objects.get(key);
    if (previous) this.unindex(key, previous);
    this.objects.set(key, object);
    this.index(key, object);
    return previous;
  }

  /** Removes by key; returns what was stored. */
  remove(key: string): T | undefined {
    const previous = this.objects.get(key);
    if (!previous) return undefined;
    this.unindex(key, previous);
    this.objects.delete(key);
    return previous;
  }

  private index(key: string, object: T): void {
    for (const [name, indexer] of Object.entries(this.indexers)) {
      const index = this.indexes.get(name)!;
      for (const value of indexer(object)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private unindex(key: string, object: T): void {
    for (const [name, indexer] of Object.entries(this.indexers)) {
      const index = this.indexes.get(name)!;
      for (const value of indexer(object)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}
