/**
 * The API server calls processing makes, as a port (a typed fake in specs): reads answer
 * `undefined` for a missing object; writes throw KubeApiError (409 conflict, 404, 403...).
 */
import { isConflict, isNotFound, type KubeResources } from '@edict/kube';
import { type KubeObject, type ObjectHeader } from '@edict/foundation';

export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** A list of one type: in one namespace or (absent) all of them, optionally by label selector. */
export interface ListRequest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly labelSelector?: string;
}

/** Objects per list request. */
const PAGE_SIZE = 500;

export interface ClusterObjects {
  get<T extends ObjectHeader = KubeObject>(ref: ObjectRef): Promise<T | undefined>;
  /** The objects of one type, page by page (items carry kind and apiVersion). */
  list(request: ListRequest): AsyncIterable<KubeObject[]>;
  create<T extends ObjectHeader>(object: T): Promise<T>;
  /** PUT (of the object, or of a subresource written as its parent); the object's resourceVersion makes it conditional. */
  replace<T extends ObjectHeader>(object: T, subresource?: string): Promise<T>;
  delete(ref: ObjectRef, preconditions?: { uid?: string; resourceVersion?: string }): Promise<void>;
  /** Whether a kind is namespaced, from discovery; undefined when the API server does not serve it. */
  namespaced(apiVersion: string, kind: string): Promise<boolean | undefined>;
}

export function kubeClusterObjects(resources: KubeResources): ClusterObjects {
  return {
    async get<T extends ObjectHeader = KubeObject>(ref: ObjectRef): Promise<T | undefined> {
      try {
        return await resources.get<T>(ref);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async *list(request) {
      const ref = { apiVersion: request.apiVersion, kind: request.kind, namespace: request.namespace };
      let next: string | undefined;
      do {
        const page = await resources.listPage(ref, {
          limit: PAGE_SIZE,
          ...(request.labelSelector ? { labelSelector: request.labelSelector } : {}),
          ...(next ? { continue: next } : {}),
        });
        yield page.items;
        next = page.continue;
      } while (next);
    },
    create: (object) => resources.create(object),
    replace: (object, subresource) => resources.replace(object, subresource ? { subresource } : {}),
    delete: (ref, preconditions) => resources.delete(ref, preconditions ? { preconditions } : {}),
    async namespaced(apiVersion, kind) {
      try {
        return (await resources.resource(apiVersion, kind)).namespaced;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}

/** Where an object lives, as a ref for get/delete. */
export function objectRef(object: ObjectHeader): ObjectRef {
  const { namespace, name = '' } = object.metadata ?? {};
  return { apiVersion: object.apiVersion ?? '', kind: object.kind ?? '', ...(namespace ? { namespace } : {}), name };
}

/**
 * Every object of the types matching the label selector, in every namespace; read whole before
 * the caller changes anything, as a change would move later list pages.
 */
export async function listAll(
  cluster: ClusterObjects,
  types: readonly Pick<ListRequest, 'apiVersion' | 'kind'>[],
  labelSelector: string,
): Promise<KubeObject[]> {
  const found: KubeObject[] = [];
  for (const { apiVersion, kind } of types) {
    for await (const page of cluster.list({ apiVersion, kind, labelSelector })) found.push(...page);
  }
  return found;
}

/**
 * Deletes each object at the uid it was read with; returns the refs it deleted. One already gone,
 * or replaced by another of the same name (a conflict on the uid), is left alone: safe to run twice.
 */
export async function deleteAll(cluster: ClusterObjects, objects: readonly KubeObject[]): Promise<ObjectRef[]> {
  const deleted: ObjectRef[] = [];
  for (const object of objects) {
    try {
      await cluster.delete(objectRef(object), { uid: object.metadata?.uid });
      deleted.push(objectRef(object));
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
  return deleted;
}
