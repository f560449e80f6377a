/**
 * `patchesJson6902`: decode (JSON or YAML text, or an already parsed list), apply every operation in
 * order, report Kyverno's outcome. Variables are already substituted. With a budget, the patch text,
 * the number of operations and the document after each operation are bounded: past a limit the
 * budget's error leaves this function (the rule ends in `error`).
 */
import { type EvaluationBudget, type JsonObject, type JsonValue, errorMessage } from '@edict/foundation';
import { JsonPatcher, PatchApplyError } from './json6902-apply';
import { DecodeError, decodePatches, type Operation } from './json6902-decode';
import { patchError, patchResult, type PatchOutcome } from './outcome';
import { PatchedSize } from './patched-size';

export function applyJson6902(
  resource: JsonObject,
  patches: string | JsonValue,
  budget?: EvaluationBudget,
): PatchOutcome {
  if (budget) checkPatchSize(patches, budget);
  let operations: readonly Operation[];
  try {
    operations = decodePatches(patches);
  } catch (error) {
    if (error instanceof DecodeError) return patchError(error.message);
    throw error;
  }
  budget?.chargeOperations(operations.length, `a JSON patch of ${operations.length} operations`);
  const patcher = new JsonPatcher(resource, budget && new PatchedSize(budget, resource));
  try {
    for (const [index, operation] of operations.entries()) {
      if (budget && index > 0) budget.checkDeadline();
      patcher.apply(operation, `operation ${index}`);
    }
  } catch (error) {
    if (error instanceof PatchApplyError) return patchError(errorMessage(error));
    throw error;
  }
  return patchResult(resource, patcher.document);
}

/** The patch itself (text after substitution, or a parsed list) is a document too. */
function checkPatchSize(patches: string | JsonValue, budget: EvaluationBudget): void {
  const limit = budget.limits.maxDocumentSize;
  if (limit <= 0) return;
  const what = 'the JSON patch (patchesJson6902 after substitution)';
  if (typeof patches === 'string') {
    if (patches.length > limit) throw budget.documentTooLarge(what);
  } else budget.checkDocument(patches, what);
}
