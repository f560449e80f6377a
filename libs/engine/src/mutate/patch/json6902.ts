/**
 * `patchesJson6902`: decode (JSON or YAML text, or an already parsed list), apply every operation in
 * order, report Kyverno's outcome. Variables are already substituted.
 */
import type { JsonObject, JsonValue } from '../../json';
import { JsonPatcher, PatchApplyError } from './json6902-apply';
import { DecodeError, decodePatches, type Operation } from './json6902-decode';
import { errorText, patchError, patchResult, type PatchOutcome } from './outcome';

export function applyJson6902(resource: JsonObject, patches: string | JsonValue): PatchOutcome {
  let operations: readonly Operation[];
  try {
    operations = decodePatches(patches);
  } catch (error) {
    if (error instanceof DecodeError) return patchError(error.message);
    throw error;
  }
  const patcher = new JsonPatcher(resource);
  try {
    for (const operation of operations) patcher.apply(operation);
  } catch (error) {
    if (error instanceof PatchApplyError) return patchError(errorText(error));
    throw error;
  }
  return patchResult(resource, patcher.document);
}
