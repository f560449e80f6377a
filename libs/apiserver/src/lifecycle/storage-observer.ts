/**
 * What the storage tells the lifecycle observers (namespaces, CRDs) at its two commit points. They
 * run inside the write, not on the store's change events, so that kube's event order is kept: a
 * CRD is served from the write that stores it, and a namespace's contents are gone before it is.
 */
import type { JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';

export interface StorageObserver {
  /** An object is about to be stored (created or changed); answers what is stored. */
  storing?(type: ResourceType, object: JsonObject): JsonObject;
  /** An object is about to be removed for good (its finalizers are done). */
  removing?(type: ResourceType, object: JsonObject): void;
}
