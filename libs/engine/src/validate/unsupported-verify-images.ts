import type { Rule } from '../policy/types';
import type { RuleRun } from './rule-run';
import { ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';

/** True for a rule with `verifyImages` entries (Kyverno's image verification rules). */
export function hasVerifyImages(rule: Rule): boolean {
  return Array.isArray(rule.verifyImages) && rule.verifyImages.length > 0;
}

/**
 * Image verification (signatures, attestations) is not implemented. Such a rule must never pass
 * silently: it answers `error`, which an Enforce policy under failure policy Fail turns into a
 * denial, and an Audit policy into an error in its report. It runs on the validate path, so it is
 * reported as a validation result.
 */
export function unverifiedImages(run: RuleRun): RuleResponse | undefined {
  if (run.request.operation === 'DELETE') return undefined;
  return ruleResponse(
    run.rule,
    'Validation',
    'error',
    'verifyImages rules are not supported by this engine: the images of this resource were not verified',
  );
}

/** The failure action a verifyImages rule asks for itself (`verifyImages[].failureAction`), if any. */
export function verifyImagesFailureAction(rule: Rule): string | undefined {
  for (const entry of rule.verifyImages ?? []) {
    const action = (entry as { failureAction?: unknown } | null)?.failureAction;
    if (typeof action === 'string') return action;
  }
  return undefined;
}
