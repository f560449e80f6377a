/**
 * The direct typed client: what in-process callers (the launcher, the controller manager, fakes and
 * specs) use instead of HTTP, with the same semantics as the REST API. Plain calls write as the
 * cluster itself (no admission, synchronously); `as(user)` gives a client whose writes go through
 * the admission chain as that user's would. `cache` is the informer-like view: the stored objects
 * by group resource and their change events.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import type { AdmissionRequestContext, UserInfo } from '../admission/types';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/resource-type';
import type { ListOptions } from '../resources/list';
import type { UpdateSubresource } from '../resources/prepare';
import type { ResourceService } from '../resources/service';
import type { DeleteOptions, PropagationPolicy } from '../resources/write-options';
import { ApiError, badRequest } from '../status';
import type { ObjectStore } from '../store/object-store';

/** The store as an informer's cache sees it: keyed by group resource (`apps/deployments`), with change events. */
export type ClusterCache = Pick<ObjectStore, 'get' | 'list' | 'subscribe' | 'dependentsOf'>;

/** Writes through admission as one user (kube-controller-manager's controllers use one each). */
export interface UserClient {
  create(object: JsonObject): Promise<JsonObject>;
  update(object: JsonObject, subresource?: UpdateSubresource): Promise<JsonObject>;
  delete(object: JsonObject, options?: DeleteOptions): Promise<JsonObject>;
}

export class ApiClient {
  constructor(
    private readonly resources: ResourceService,
    private readonly registry: ResourceRegistry,
    readonly cache: ClusterCache,
  ) {}

  create(object: JsonObject, options: { dryRun?: boolean } = {}): JsonObject {
    const type = this.typeOf(object);
    return this.resources.withoutAdmission.create(type, namespaceOf(object), object, options).object;
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): JsonObject | undefined {
    try {
      return this.resources.get(this.typeFor(apiVersion, kind), namespace, name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  list(apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): JsonObject[] {
    return this.resources.list(this.typeFor(apiVersion, kind), namespace, options).items;
  }

  update(object: JsonObject, options: { subresource?: UpdateSubresource } = {}): JsonObject {
    const type = this.typeOf(object);
    const name = String((object.metadata as JsonObject).name);
    return this.resources.withoutAdmission.update(type, namespaceOf(object), name, object, options).object;
  }

  delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    options: { propagationPolicy?: PropagationPolicy; preconditions?: DeleteOptions['preconditions'] } = {},
  ): void {
    this.resources.withoutAdmission.delete(this.typeFor(apiVersion, kind), namespace, name, options);
  }

  /** Drops a dependent's reference to a removed owner (the garbage collector, when another owner lives). */
  removeOwnerReference(groupResource: string, object: JsonObject, ownerUid: string): void {
    this.resources.removeOwnerReference(groupResource, object, ownerUid);
  }

  /** The served type of a kind, if any. */
  findType(apiVersion: string, kind: string): ResourceType | undefined {
    return this.registry.findByKind(apiVersion, kind);
  }

  /** A client writing through admission as `user`, its writes recorded under the user agent's product. */
  as(user: UserInfo, userAgent?: string): UserClient {
    const context = (): AdmissionRequestContext => ({ userInfo: user, warnings: [], userAgent });
    return {
      create: async (object) =>
        (await this.resources.create(this.typeOf(object), namespaceOf(object), object, {}, context())).object,
      update: async (object, subresource) => {
        const name = String((object.metadata as JsonObject).name);
        const options = subresource ? { subresource } : {};
        const type = this.typeOf(object);
        return (await this.resources.update(type, namespaceOf(object), name, object, options, context())).object;
      },
      delete: async (object, options = {}) => {
        const name = String((object.metadata as JsonObject).name);
        const type = this.typeOf(object);
        return (await this.resources.delete(type, namespaceOf(object), name, options, context())).object;
      },
    };
  }

  private typeFor(apiVersion: string, kind: string): ResourceType {
    const type = this.registry.findByKind(apiVersion, kind);
    if (!type) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
    return type;
  }

  private typeOf(object: JsonObject): ResourceType {
    return this.typeFor(String(object.apiVersion), String(object.kind));
  }
}

function namespaceOf(object: JsonObject): string | undefined {
  const namespace = isObject(object.metadata) ? object.metadata.namespace : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
}
