import { ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import { exceptionKey } from '../exceptions';
import type { PolicyException } from '../policy/types';
import { evaluatePodSecurity, PodSecurityError, podSecurityRuleMessage } from '../pss';
import type { RuleRun } from './rule-run';

/**
 * Kyverno's podSecurity handler. An exception without `podSecurity` skips the rule outright; the
 * `podSecurity` exclusions of the others are applied on top of the rule's own when it fails, and the
 * rule is skipped when that clears every failing check.
 */
export function validatePodSecurity(run: RuleRun, exceptions: readonly PolicyException[]): RuleResponse | undefined {
  if (run.request.operation === 'DELETE') return undefined;
  const { rule } = run;
  const blanket = exceptions.find((exception) => !exception.spec.podSecurity);
  if (blanket)
    return withExceptions(
      ruleResponse(rule, 'Validation', 'skip', `rule is skipped due to policy exception ${exceptionKey(blanket)}`),
      [blanket],
    );

  let evaluation;
  try {
    evaluation = evaluatePodSecurity(rule.validate!.podSecurity!, run.resource, {
      exceptionExcludes: exceptions.flatMap((exception) => exception.spec.podSecurity ?? []),
    });
  } catch (error) {
    if (error instanceof PodSecurityError) return ruleResponse(rule, 'Validation', 'error', error.ruleMessage);
    throw error;
  }
  if (evaluation.exempted) {
    const keys = exceptions.map(exceptionKey).join(', ');
    return withExceptions(
      ruleResponse(rule, 'Validation', 'skip', `rule is skipped due to policy exceptions ${keys}`),
      exceptions,
    );
  }
  const response = ruleResponse(
    rule,
    'Validation',
    evaluation.allowed ? 'pass' : 'fail',
    podSecurityRuleMessage(rule.name, evaluation),
  );
  if (!evaluation.allowed) response.podSecurityChecks = evaluation.checks;
  return response;
}

function withExceptions(response: RuleResponse, exceptions: readonly PolicyException[]): RuleResponse {
  response.exceptions = exceptions.map(exceptionKey);
  return response;
}
