/** A typed fake of ClusterObjects: objects in memory with resourceVersions, 404/409 as the API server answers. */
import { KubeApiError } from '@edict/kube';
import { type KubeObject, type ObjectHeader } from '@edict/foundation';
import type { ClusterObjects, ListRequest, ObjectRef } from '../update-requests/cluster-objects';

export class FakeCluster implements ClusterObjects {
  readonly objects = new Map<string, KubeObject>();
  readonly writes: string[] = [];
  /** `get Kind name` for each read. */
  readonly reads: string[] = [];
  /** Errors the next writes throw, in order. */
  readonly failNextWrites: unknown[] = [];
  private version = 0;
  /** Kinds `namespaced` answers as cluster-scoped. */
  readonly clusterScopedKinds = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'ClusterPolicy', 'Node']);
  /** Kinds `namespaced` answers as not served. */
  readonly unservedKinds = new Set<string>();

  put<T extends ObjectHeader>(object: T): T & KubeObject {
    const stored = structuredClone(object) as ObjectHeader as KubeObject;
    stored.metadata = {
      ...stored.metadata,
      resourceVersion: String(++this.version),
      uid: stored.metadata?.uid ?? `uid-${this.version}`,
    };
    this.objects.set(keyOf(stored), stored);
    return structuredClone(stored) as T & KubeObject;
  }

  find(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject | undefined {
    return this.objects.get(key(apiVersion, kind, namespace, name));
  }

  async get<T extends ObjectHeader = KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    this.reads.push(`get ${ref.kind} ${ref.name}`);
    const found = this.objects.get(key(ref.apiVersion, ref.kind, ref.namespace, ref.name));
    return found && (structuredClone(found) as ObjectHeader as T);
  }

  /** Equality label selectors (`a=b,c=`) only; two objects a page, so that paging is exercised. */
  async *list(request: ListRequest): AsyncIterable<KubeObject[]> {
    const wanted = (request.labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('=') as [string, string]);
    const items = [...this.objects.values()].filter(
      (object) =>
        object.apiVersion === request.apiVersion &&
        object.kind === request.kind &&
        (request.namespace === undefined || object.metadata?.namespace === request.namespace) &&
        wanted.every(([label, value]) => object.metadata?.labels?.[label] === value),
    );
    for (let start = 0; start < items.length; start += 2) yield structuredClone(items.slice(start, start + 2));
  }

  async create<T extends ObjectHeader>(object: T): Promise<T> {
    this.write('create', object);
    if (this.objects.has(keyOf(object))) throw new KubeApiError(409, 'AlreadyExists', 'already exists');
    return this.put(object);
  }

  async replace<T extends ObjectHeader>(written: T, subresource?: string): Promise<T> {
    const object = written as ObjectHeader as KubeObject;
    // Only status is modelled here; the in-memory API server serves the others (pods/resize...).
    if (subresource !== undefined && subresource !== 'status') {
      throw new KubeApiError(404, 'NotFound', `the server could not find the requested resource (${subresource})`);
    }
    this.write(subresource ? 'status' : 'replace', object);
    const existing = this.objects.get(keyOf(object));
    if (!existing) throw new KubeApiError(404, 'NotFound', 'not found');
    const wanted = object.metadata?.resourceVersion;
    if (wanted && wanted !== existing.metadata?.resourceVersion) throw new KubeApiError(409, 'Conflict', 'conflict');
    const next = subresource ? { ...existing, status: object.status } : { ...object, status: existing.status };
    return this.put({ ...next, metadata: { ...next.metadata, uid: existing.metadata.uid } }) as ObjectHeader as T;
  }

  async delete(ref: ObjectRef): Promise<void> {
    this.writes.push(`delete ${ref.kind} ${ref.name}`);
    const k = key(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    if (!this.objects.delete(k)) throw new KubeApiError(404, 'NotFound', 'not found');
  }

  /** Namespaced unless the kind is one of `clusterScopedKinds`; unknown when in `unservedKinds`. */
  async namespaced(_apiVersion: string, kind: string): Promise<boolean | undefined> {
    if (this.unservedKinds.has(kind)) return undefined;
    return !this.clusterScopedKinds.has(kind);
  }

  private write(verb: string, object: ObjectHeader): void {
    this.writes.push(`${verb} ${object.kind} ${object.metadata?.name}`);
    const failure = this.failNextWrites.shift();
    if (failure) throw failure;
  }
}

function key(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
}

function keyOf(object: ObjectHeader): string {
  return key(object.apiVersion ?? '', object.kind ?? '', object.metadata?.namespace, object.metadata?.name ?? '');
}
