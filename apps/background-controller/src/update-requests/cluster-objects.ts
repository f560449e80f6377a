/**
 * The API server calls processing makes, as a port (a typed fake in specs): reads answer
 * `undefined` for a missing object; writes throw KubeApiError (409 conflict, 404, 403...).
 */
import { isNotFound, type KubeObject, type KubeResources } from '@edict/kube';

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
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** The objects of one type, page by page (items carry kind and apiVersion). */
  list(request: ListRequest): AsyncIterable<KubeObject[]>;
  create(object: KubeObject): Promise<KubeObject>;
  /** PUT; the object's resourceVersion makes it conditional. */
  replace(object: KubeObject, subresource?: 'status'): Promise<KubeObject>;
  delete(ref: ObjectRef, preconditions?: { uid?: string; resourceVersion?: string }): Promise<void>;
}

export function kubeClusterObjects(resources: KubeResources): ClusterObjects {
  return {
    async get(ref) {
      try {
        return await resources.get<KubeObject>(ref);
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
  };
}
