/** Reading and dropping an object's `metadata.ownerReferences` (the store finds dependents). */
import { isObject, type JsonObject } from '@edict/foundation';

export function ownerReferencesOf(object: JsonObject): JsonObject[] {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences.filter(isObject) : [];
}

/** The object without its reference to `ownerUid` (the field goes when no reference is left). */
export function withoutOwner(object: JsonObject, ownerUid: string): JsonObject {
  const metadata = { ...(isObject(object.metadata) ? object.metadata : {}) };
  const remaining = ownerReferencesOf(object).filter((ref) => ref.uid !== ownerUid);
  if (remaining.length > 0) metadata.ownerReferences = remaining;
  else delete metadata.ownerReferences;
  return { ...object, metadata };
}
