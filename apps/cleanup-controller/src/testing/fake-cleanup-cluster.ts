/** A CleanupCluster over an in-process list of objects, for specs of the cleanup run and the TTL controller. */
import type { DeletionPropagationPolicy } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CleanupCluster, ObjectType } from '../cluster/cleanup-cluster';

export const POD_TYPE: ObjectType = {
  apiVersion: 'v1',
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  verbs: ['list', 'watch', 'delete'],
};

export class FakeCleanupCluster implements CleanupCluster {
  readonly deletions: Array<{ name: string; propagation?: DeletionPropagationPolicy }> = [];
  readonly namespaces: Record<string, Record<string, string>> = {};
  /** Names whose deletion fails. */
  readonly failing = new Set<string>();

  constructor(
    public objects: KubeObject[],
    private readonly types: readonly ObjectType[] = [POD_TYPE],
  ) {}

  async typesOf(selector: string): Promise<ObjectType[]> {
    const kind = selector.split('/').pop();
    return this.types.filter((type) => kind === '*' || type.kind === kind);
  }

  async list(type: ObjectType, namespace: string | undefined, limit: number): Promise<KubeObject[]> {
    const found = this.objects.filter(
      (o) => o.kind === type.kind && (namespace === undefined || o.metadata?.namespace === namespace),
    );
    if (found.length > limit) throw new Error(`more than ${limit}`);
    return found;
  }

  async namespaceLabels(name: string): Promise<Record<string, string>> {
    return this.namespaces[name] ?? {};
  }

  async namespace(name: string): Promise<KubeObject | null> {
    const labels = this.namespaces[name];
    return labels ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } : null;
  }

  async delete(object: KubeObject, propagation?: DeletionPropagationPolicy): Promise<boolean> {
    const name = object.metadata?.name ?? '';
    if (this.failing.has(name)) throw new Error(`pods "${name}" is forbidden`);
    const before = this.objects.length;
    // The same object: kind, namespace and name (a run may hand over a copy with its type filled in).
    const same = (o: KubeObject) =>
      o.kind === object.kind && o.metadata?.namespace === object.metadata?.namespace && o.metadata?.name === name;
    this.objects = this.objects.filter((o) => !same(o));
    if (this.objects.length === before) return false;
    this.deletions.push({ name, ...(propagation ? { propagation } : {}) });
    return true;
  }

  async allowed(type: ObjectType): Promise<boolean> {
    return this.types.includes(type);
  }
}

export function pod(name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels, uid: `uid-${name}` } };
}
