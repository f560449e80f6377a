import { isObject, errorMessage } from '@edict/foundation';
import { decodePatches } from '../mutate/patch/json6902-decode';
import type { ForEachMutation } from '../policy';
import type { RuleCheck } from './check-context';
import type { Path } from './findings';
import { labelsAndAnnotationsAreStrings } from './patterns';

const ANY_VARIABLE = /\{\{[^{}]*\}\}/g;

/** Kyverno's mutate-rule checks: patch kinds, JSON patch form, targets of namespaced policies. */
export function checkMutateRule(c: RuleCheck): void {
  const mutate = c.rule.mutate;
  if (!mutate) return;
  const at: Path = [...c.path, 'mutate'];
  if (c.rule.celPreconditions) {
    c.findings.error([...c.path, 'celPreconditions'], 'celPrecondition can only be used with validate.cel');
  }
  const hasPsm = mutate.patchStrategicMerge !== undefined && mutate.patchStrategicMerge !== null;
  const hasJson = typeof mutate.patchesJson6902 === 'string' && mutate.patchesJson6902 !== '';
  if ((mutate.foreach?.length ?? 0) > 0) {
    if (hasPsm || hasJson)
      c.findings.error(
        [...at, 'foreach'],
        'only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed',
      );
    checkForeach(mutate.foreach!, [...at, 'foreach'], c);
  } else if (hasPsm && hasJson) {
    c.findings.error(at, 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed');
  }
  if (hasJson) checkJsonPatch(mutate.patchesJson6902!, [...at, 'patchesJson6902'], c);
  if (!labelsAreStrings(mutate.foreach, mutate.patchStrategicMerge)) {
    c.findings.error(
      at,
      'labels and annotations supports only string values, "use double quotes around the non string values"',
    );
  }
  if (c.namespaced) {
    (mutate.targets ?? []).forEach((target, i) => {
      if (target.namespace && target.namespace !== c.namespace) {
        c.findings.error(
          [...at, 'targets', i, 'namespace'],
          'This field can be ignored or should have value of the namespace where the policy is being created',
        );
      }
    });
  }
}

/**
 * Each foreach entry holds either a nested foreach (and nothing else) or exactly one patch. Kyverno
 * stops after the first entry that holds a nested foreach; so does this walk.
 */
function checkForeach(list: readonly ForEachMutation[], path: Path, c: RuleCheck): void {
  for (const [i, fe] of list.entries()) {
    if ((fe.foreach?.length ?? 0) > 0) {
      const declares =
        fe.context !== undefined ||
        fe.preconditions !== undefined ||
        Boolean(fe.patchesJson6902) ||
        (fe.patchStrategicMerge !== undefined && fe.patchStrategicMerge !== null);
      if (declares) c.findings.error([...path, i], 'a nested foreach cannot contain other declarations');
      else checkForeach(fe.foreach!, [...path, i, 'foreach'], c);
      return;
    }
    const hasPsm = fe.patchStrategicMerge !== undefined && fe.patchStrategicMerge !== null;
    if (Boolean(fe.patchesJson6902) === hasPsm)
      c.findings.error([...path, i], 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed');
  }
}

/** Variables are replaced by a placeholder first (Kyverno cannot know their values yet). */
function checkJsonPatch(patch: string, path: Path, c: RuleCheck): void {
  const where = `spec.rules[${c.index}]`;
  let operations;
  try {
    operations = decodePatches(patch.replace(ANY_VARIABLE, 'kyvernojsonpatchvariable'));
  } catch (error) {
    c.findings.error(path, `path must begin with a forward slash: ${where}: ${errorMessage(error)}`);
    return;
  }
  for (const op of operations) {
    if (!op.path.startsWith('/')) c.findings.error(path, `path must begin with a forward slash: ${where}: ${op.path}`);
    // A `test` needs its value (add and replace are refused without one when decoded).
    if (op.op === 'test' && !('value' in op))
      c.findings.error(path, `invalid value: ${where}: operation, missing value field: missing value`);
  }
}

function labelsAreStrings(foreach: readonly ForEachMutation[] | undefined, psm: unknown): boolean {
  if (foreach) {
    const first = foreach.find((fe) => isObject(fe.patchStrategicMerge as never));
    return first ? labelsAndAnnotationsAreStrings(first.patchStrategicMerge) : true;
  }
  return labelsAndAnnotationsAreStrings(psm as never);
}
