/** A typed fake of ReportsCluster: objects in memory with resourceVersions, uids and 404/409 as the API server answers. */
import { KubeApiError, type ResourceRef } from '@edict/kube';
import { type KubeObject, type ObjectHeader } from '@edict/foundation';
import type { ObjectRef, ReportsCluster } from '../aggregation/reports-cluster';

export class FakeReportsCluster implements ReportsCluster {
  readonly objects = new Map<string, KubeObject>();
  readonly writes: string[] = [];
  /** Called before each write, so a spec can change the cluster under the aggregator (another leader). */
  beforeWrite?: (verb: string, name: string) => void;
  private version = 0;

  put<T extends ObjectHeader>(object: T): T & KubeObject {
    const stored = structuredClone(object) as ObjectHeader as KubeObject;
    stored.metadata = {
      ...stored.metadata,
      resourceVersion: String(++this.version),
      uid: stored.metadata?.uid ?? `uid-${this.version}`,
      creationTimestamp: stored.metadata?.creationTimestamp ?? new Date().toISOString(),
    };
    this.objects.set(keyOf(stored), stored);
    return structuredClone(stored) as T & KubeObject;
  }

  all(kind: string): KubeObject[] {
    return [...this.objects.values()].filter((object) => object.kind === kind);
  }

  async find(ref: ObjectRef): Promise<KubeObject | undefined> {
    const found = this.objects.get(key(ref.apiVersion, ref.kind, ref.namespace, ref.name));
    return found && structuredClone(found);
  }

  /** Equality label selectors and `key` existence only; two items a page, so that paging is exercised. */
  async listPage(ref: ResourceRef, query: { labelSelector?: string; continue?: string }) {
    const terms = (query.labelSelector ?? '').split(',').filter(Boolean);
    const items = [...this.objects.values()].filter(
      (object) =>
        object.apiVersion === ref.apiVersion &&
        object.kind === ref.kind &&
        (ref.namespace === undefined || object.metadata?.namespace === ref.namespace) &&
        terms.every((term) => {
          const [label, value] = term.split('=') as [string, string | undefined];
          const actual = object.metadata?.labels?.[label];
          return value === undefined ? actual !== undefined : actual === value;
        }),
    );
    const start = Number(query.continue ?? 0);
    const next = start + 2 < items.length ? String(start + 2) : undefined;
    return { items: structuredClone(items.slice(start, start + 2)), ...(next ? { continue: next } : {}) };
  }

  async create<T extends ObjectHeader>(object: T): Promise<T> {
    this.write('create', object.metadata?.name);
    if (this.objects.has(keyOf(object))) throw new KubeApiError(409, 'AlreadyExists', 'already exists');
    return this.put({ ...object, metadata: { ...object.metadata, resourceVersion: undefined, uid: undefined } });
  }

  async replace<T extends ObjectHeader>(object: T): Promise<T> {
    this.write('replace', object.metadata?.name);
    const existing = this.objects.get(keyOf(object));
    if (!existing) throw new KubeApiError(404, 'NotFound', 'not found');
    if (object.metadata?.resourceVersion !== existing.metadata?.resourceVersion)
      throw new KubeApiError(409, 'Conflict', 'the object has been modified');
    return this.put({ ...object, metadata: { ...object.metadata, uid: existing.metadata?.uid } });
  }

  async delete(ref: ObjectRef, preconditions: { resourceVersion?: string; uid?: string } = {}): Promise<void> {
    this.write('delete', ref.name);
    const k = key(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    const existing = this.objects.get(k);
    if (!existing) return;
    if (
      (preconditions.resourceVersion && preconditions.resourceVersion !== existing.metadata?.resourceVersion) ||
      (preconditions.uid && preconditions.uid !== existing.metadata?.uid)
    )
      throw new KubeApiError(409, 'Conflict', 'precondition failed');
    this.objects.delete(k);
  }

  private write(verb: string, name: string | undefined): void {
    this.writes.push(`${verb} ${name}`);
    this.beforeWrite?.(verb, name ?? '');
  }
}

function key(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
}

function keyOf(object: ObjectHeader): string {
  return key(object.apiVersion ?? '', object.kind ?? '', object.metadata?.namespace, object.metadata?.name ?? '');
}
