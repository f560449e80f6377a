/** Finding an object's dependents: objects whose `metadata.ownerReferences` name its uid. */
import { isObject, type JsonObject } from '@edict/engine';
import type { ObjectStore } from '../store/object-store';

export interface Dependent {
  readonly groupResource: string;
  readonly object: JsonObject;
}

export function ownerReferencesOf(object: JsonObject): JsonObject[] {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences.filter(isObject) : [];
}

/** Every stored object that references `ownerUid` (a full scan: the store is small and in memory). */
export function dependentsOf(store: ObjectStore, ownerUid: string): Dependent[] {
  const found: Dependent[] = [];
  for (const groupResource of store.groupResources()) {
    for (const object of store.list(groupResource)) {
      if (ownerReferencesOf(object).some((ref) => ref.uid === ownerUid)) found.push({ groupResource, object });
    }
  }
  return found;
}

/** The object without its reference to `ownerUid` (the field goes when no reference is left). */
export function withoutOwner(object: JsonObject, ownerUid: string): JsonObject {
  const metadata = { ...(isObject(object.metadata) ? object.metadata : {}) };
  const remaining = ownerReferencesOf(object).filter((ref) => ref.uid !== ownerUid);
  if (remaining.length > 0) metadata.ownerReferences = remaining;
  else delete metadata.ownerReferences;
  return { ...object, metadata };
}
