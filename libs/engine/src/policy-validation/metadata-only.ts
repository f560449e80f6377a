import { isObject, type JsonValue } from '@edict/foundation';
import { decodePatches } from '../mutate/patch/json6902-decode';
import type { Rule } from '../policy';

/**
 * Kyverno's `ruleOnlyDealsWithResourceMetaData`: a rule that matches no particular kind may only
 * look at (or patch) `metadata`.
 */
export function ruleOnlyDealsWithMetadata(rule: Rule): boolean {
  const mutate = rule.mutate;
  if (mutate) {
    if (!onlyMetadataKeys(mutate.patchStrategicMerge)) return false;
    if (mutate.patchesJson6902) {
      for (const path of jsonPatchPaths(mutate.patchesJson6902)) if (!path.startsWith('/metadata')) return false;
    }
  }
  const validate = rule.validate;
  if (validate) {
    if (!onlyMetadataKeys(validate.pattern)) return false;
    for (const pattern of validate.anyPattern ?? []) if (!onlyMetadataKeys(pattern)) return false;
  }
  return true;
}

function onlyMetadataKeys(value: JsonValue | undefined): boolean {
  if (!isObject(value)) return true;
  return Object.keys(value).every((key) => key === 'metadata');
}

/** The `path` of each operation of a JSON patch; undecodable patches have none (as in Kyverno). */
export function jsonPatchPaths(patch: string): string[] {
  try {
    return decodePatches(patch).map((op) => op.path);
  } catch {
    return [];
  }
}
