/**
 * What applying one mutate patch produced, worded as Kyverno's mutate rule response: `skip` with
 * "no patches applied" whenever the resource comes out unchanged (Kyverno compares the documents,
 * whatever the reason: failed anchors, a no-op patch), errors prefixed "failed to patch resource: ".
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export type PatchOutcome =
  { status: 'pass'; resource: JsonObject } | { status: 'skip'; message: string } | { status: 'error'; message: string };

export const NO_PATCHES_APPLIED = 'no patches applied';

export function patchError(cause: string): PatchOutcome {
  return { status: 'error', message: `failed to patch resource: ${cause}` };
}

/** Turns a patched document into an outcome, comparing it with the original. */
export function patchResult(original: JsonObject, patched: JsonValue | undefined): PatchOutcome {
  if (!isObject(patched)) {
    const what = patched === undefined ? 'the patch deleted the resource' : 'the patched resource is not an object';
    return { status: 'error', message: `failed to unmarshal patched resource: ${what}` };
  }
  if (deepEqual(original, patched)) return { status: 'skip', message: NO_PATCHES_APPLIED };
  return { status: 'pass', resource: patched };
}
