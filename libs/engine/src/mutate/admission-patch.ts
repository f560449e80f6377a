import { compare, type Operation } from 'fast-json-patch';
import type { KubeObject } from '@edict/foundation';

export type JsonPatchOperation = Operation;

/**
 * The single RFC 6902 patch an admission response carries: from the object as submitted to the
 * object after every mutate rule of every policy.
 */
export function admissionPatch(original: KubeObject, mutated: KubeObject): JsonPatchOperation[] {
  return compare(original, mutated);
}
