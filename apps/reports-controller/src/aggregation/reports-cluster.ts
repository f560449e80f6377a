/**
 * What aggregation needs from the API server, as a port: find, list by label, and writes that
 * answer 409 (conflict, exists) and 404 as the API server does. `kubeReportsCluster` is the real
 * one; specs use a typed fake.
 */
import { isNotFound, type KubeResources, type ResourceRef } from '@edict/kube';
import { type KubeObject, type ObjectHeader } from '@edict/foundation';

export type ObjectRef = ResourceRef & { readonly name: string };

export interface ReportsCluster {
  find(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** One page at most `limit` long; `continue` from the previous page's answer. */
  listPage(
    ref: ResourceRef,
    query: { labelSelector?: string; limit?: number; continue?: string },
  ): Promise<{ items: KubeObject[]; continue?: string }>;
  create<T extends ObjectHeader>(object: T): Promise<T>;
  /** PUT at `metadata.resourceVersion`: 409 when the object changed since it was read. */
  replace<T extends ObjectHeader>(object: T): Promise<T>;
  /** Deletes if still at `resourceVersion` (409 otherwise); an object already gone is no error. */
  delete(ref: ObjectRef, preconditions?: { resourceVersion?: string; uid?: string }): Promise<void>;
}

export function kubeReportsCluster(resources: KubeResources): ReportsCluster {
  return {
    find: (ref) => resources.find(ref),
    listPage: (ref, query) => resources.listPage(ref, query),
    create: (object) => resources.create(object),
    replace: (object) => resources.replace(object),
    delete: async (ref, preconditions) => {
      try {
        await resources.delete(ref, preconditions ? { preconditions } : {});
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
  };
}

/** Every item of a paged list, one page in memory at a time. */
export async function* listAll(
  cluster: ReportsCluster,
  ref: ResourceRef,
  labelSelector: string,
  pageSize = 500,
): AsyncIterable<KubeObject> {
  let next: string | undefined;
  do {
    const page = await cluster.listPage(ref, { labelSelector, limit: pageSize, ...(next ? { continue: next } : {}) });
    yield* page.items;
    next = page.continue;
  } while (next);
}
