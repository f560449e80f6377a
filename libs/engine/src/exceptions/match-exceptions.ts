import type { PolicyException } from '../policy/types';
import { matchesExceptionResources, type MatchRequest } from '../match';
import { wildcardMatch } from '../values/wildcard';
import { checkConditions } from '../core/conditions';
import type { EvaluationContext } from '../variables';

/** `namespace/name`, as Kyverno names exceptions in messages and reports. */
export function exceptionKey(exception: PolicyException): string {
  const { namespace, name } = exception.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * The exceptions that name this policy and rule. A rule name listed in an exception also covers the
 * rule's autogen copies, since users write exceptions against the rules they wrote.
 */
export function exceptionsForRule(
  exceptions: readonly PolicyException[],
  policyKey: string,
  ruleName: string,
): PolicyException[] {
  return exceptions.filter((exception) =>
    (exception.spec?.exceptions ?? []).some(
      (entry) =>
        entry.policyName === policyKey &&
        (entry.ruleNames ?? []).some(
          (pattern) =>
            wildcardMatch(pattern, ruleName) ||
            wildcardMatch(`autogen-${pattern}`, ruleName) ||
            wildcardMatch(`autogen-cronjob-${pattern}`, ruleName),
        ),
    ),
  );
}

/** The candidate exceptions whose `match` covers the request and whose `conditions` hold. */
export function matchingExceptions(
  candidates: readonly PolicyException[],
  request: MatchRequest,
  ctx: EvaluationContext,
): PolicyException[] {
  return candidates.filter(
    (exception) =>
      matchesExceptionResources(exception.spec.match, request) &&
      checkConditions(exception.spec.conditions, ctx).passed,
  );
}
