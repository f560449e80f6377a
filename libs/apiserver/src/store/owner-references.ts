/**
 * An object's `metadata.ownerReferences`, read and written in one place: the store indexes
 * dependents by them, deletes orphan them, and the controller manager's garbage collector and
 * controllers (claiming, adopting, releasing) read and set them.
 */
import { isObject, type JsonObject } from '@edict/foundation';

export function ownerReferencesOf(object: JsonObject): JsonObject[] {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences.filter(isObject) : [];
}

/** The owner uids an object references (a reference may lack its uid). */
export function ownerUidsOf(object: JsonObject): string[] {
  return ownerReferencesOf(object)
    .map((reference) => reference.uid)
    .filter((uid): uid is string => typeof uid === 'string');
}

/** The object with these owner references (the field goes when there are none). */
export function withOwnerReferences(object: JsonObject, references: readonly JsonObject[]): JsonObject {
  const metadata = { ...(isObject(object.metadata) ? object.metadata : {}) };
  if (references.length > 0) metadata.ownerReferences = [...references];
  else delete metadata.ownerReferences;
  return { ...object, metadata };
}

/** The object without its reference to `ownerUid` (the field goes when no reference is left). */
export function withoutOwner(object: JsonObject, ownerUid: string): JsonObject {
  return withOwnerReferences(
    object,
    ownerReferencesOf(object).filter((ref) => ref.uid !== ownerUid),
  );
}
