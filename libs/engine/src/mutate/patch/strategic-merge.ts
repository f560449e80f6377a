/**
 * `patchStrategicMerge`: Kyverno's anchors are resolved against the resource first, then the plain
 * patch is merged the way kustomize's kyaml merges (see merge.ts). Variables are already substituted.
 */
import {
  type EvaluationBudget,
  isObject,
  setOwn,
  type JsonObject,
  type JsonValue,
  errorMessage,
  schemaForResource,
} from '@edict/foundation';
import { PreprocessError, resolveAnchors } from './anchors';
import { MergeError, mergeValue } from './merge';
import { nodeKind } from './node-text';
import { patchError, patchResult, type PatchOutcome } from './outcome';

/**
 * With a budget, the patch (checked before it is copied: substitution can share one large value
 * many times) and the merged resource are bounded by the document size limit, and the merge counts
 * as one operation of the rule.
 */
export function applyStrategicMergePatch(
  resource: JsonObject,
  patch: JsonValue,
  budget?: EvaluationBudget,
): PatchOutcome {
  if (budget) {
    budget.chargeOperations(1, 'a strategic merge');
    budget.checkDocument(patch, 'the strategic merge patch (patchStrategicMerge after substitution)');
  }
  if (!isObject(patch)) {
    return patchError(`failed to preProcess rule: wrong node kind: expected MappingNode but got ${nodeKind(patch)}`);
  }
  // Kyverno hands kyaml the patch re-encoded from a Go map, hence with sorted keys; the order decides
  // which anchor failure is met first.
  let plainPatch = sortedCopy(patch) as JsonObject;
  try {
    // A condition that does not hold leaves nothing to merge.
    if (resolveAnchors(plainPatch, resource)) plainPatch = {};
  } catch (error) {
    if (error instanceof PreprocessError) return patchError(`failed to preProcess rule: ${error.message}`);
    throw error;
  }
  const schema =
    schemaForResource(resource.apiVersion, resource.kind) ?? schemaForResource(patch.apiVersion, patch.kind);
  try {
    const merged = mergeValue(resource, plainPatch, schema);
    if (budget && merged !== undefined) budget.checkDocument(merged, 'the resource after the strategic merge');
    return patchResult(resource, merged);
  } catch (error) {
    if (error instanceof MergeError) return patchError(errorMessage(error));
    throw error;
  }
}

function sortedCopy(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) setOwn(out, key, sortedCopy(value[key]!));
  return out;
}
