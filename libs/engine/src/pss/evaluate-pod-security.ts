import type { KubeObject } from '@edict/foundation';
import type { PodSecurity, PodSecurityStandardExclude } from '../policy/types';
import { controlNameOf } from './controls';
import { PodSecurityError } from './errors';
import { applyExclusions } from './exclusions';
import { type CheckOutcome, runChecks } from './evaluate-checks';
import { type FieldError, formatFieldError } from './field-error';
import { imagesOfCheck, resourceFieldPath, violationMessage } from './message';
import { podFromResource } from './pod-source';
import { parsePolicyVersion } from './version';

export interface PssCheckResult {
  /** pod-security-admission check ID, e.g. `capabilities_restricted`. */
  id: string;
  /** Kyverno control name, e.g. `Capabilities`. */
  controlName: string;
  allowed: boolean;
  forbiddenReason?: string;
  forbiddenDetail?: string;
  /** Normalized images of the containers the check names, when it names any. */
  images?: string[];
  /** Field errors with paths relative to the resource (e.g. `spec.template.spec...` for a Deployment). */
  fieldErrors: FieldError[];
}

export interface PodSecurityEvaluation {
  /** Verdict of the rule itself (after the rule's own `exclude` list). */
  allowed: boolean;
  /** The rule failed, but the PolicyException exclusions passed in cleared every failing check. */
  exempted: boolean;
  /** Checks still failing after all exclusions (empty when allowed or exempted). */
  checks: PssCheckResult[];
  /** Kyverno's wording of the violation: `It violates PodSecurity "<level>:<version>": (...)...`; '' otherwise. */
  message: string;
}

export interface PodSecurityOptions {
  /**
   * `spec.podSecurity` of every matched PolicyException (all of them must carry podSecurity,
   * otherwise Kyverno skips the rule outright). Applied only when the rule fails.
   */
  exceptionExcludes?: readonly PodSecurityStandardExclude[];
}

const PASSED: PodSecurityEvaluation = { allowed: true, exempted: false, checks: [], message: '' };

/**
 * Evaluates a `validate.podSecurity` rule against a Pod or pod controller, as Kyverno does.
 * Throws PodSecurityError (whose `ruleMessage` is Kyverno's rule error text) when the resource
 * kind has no pod, a pod field has the wrong type, or the version cannot be parsed.
 */
export function evaluatePodSecurity(
  podSecurity: PodSecurity,
  resource: KubeObject,
  options: PodSecurityOptions = {},
): PodSecurityEvaluation {
  const pod = podFromResource(resource);
  const minor = parsePolicyVersion(podSecurity.version);
  const level = podSecurity.level;
  if (level === 'privileged') return PASSED;
  if (level !== 'baseline' && level !== 'restricted') {
    throw new PodSecurityError(
      'invalid pod security level',
      `"${String(level)}" is not one of privileged, baseline, restricted`,
      'validate.podSecurity.level',
    );
  }

  let failing = runChecks(level, minor, pod);
  if (failing.length > 0 && podSecurity.exclude?.length) {
    failing = applyExclusions(level, minor, podSecurity.exclude, failing, pod);
  }
  if (failing.length === 0) return PASSED;

  const exceptionExcludes = options.exceptionExcludes ?? [];
  if (exceptionExcludes.length > 0) {
    failing = applyExclusions(level, minor, exceptionExcludes, failing, pod);
    if (failing.length === 0) return { allowed: false, exempted: true, checks: [], message: '' };
  }

  const converted: CheckOutcome[] = failing.map((check) => ({
    ...check,
    errors: check.errors.map((error) => ({ ...error, field: resourceFieldPath(error.field, resource.kind) })),
  }));
  return {
    allowed: false,
    exempted: false,
    checks: converted.map((check) => ({
      id: check.id,
      controlName: controlNameOf(check.id),
      allowed: false,
      forbiddenReason: check.reason,
      forbiddenDetail: check.detail,
      images: imagesOfCheck(check.detail, pod),
      fieldErrors: check.errors,
    })),
    message: violationMessage(level, podSecurity.version, converted),
  };
}

/** The full rule message Kyverno reports for a pass or fail of a podSecurity rule. */
export function podSecurityRuleMessage(ruleName: string, evaluation: PodSecurityEvaluation): string {
  return evaluation.allowed
    ? `Validation rule '${ruleName}' passed.`
    : `Validation rule '${ruleName}' failed. ${evaluation.message}`;
}

/** Formats field errors the way they appear inside the message (handy for reports and tests). */
export function describeFieldErrors(errors: readonly FieldError[]): string[] {
  return errors.map(formatFieldError);
}
