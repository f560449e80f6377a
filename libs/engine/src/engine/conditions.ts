import { evaluateConditions, type ConditionsResult } from '../conditions';
import type { Conditions } from '../policy/types';
import { substituteVariables, type EvaluationContext } from '../variables';

/**
 * Evaluates preconditions, deny conditions or exception conditions against the context. As in
 * Kyverno, each condition is substituted only when reached, and a variable that cannot be resolved
 * reads as an empty string rather than failing the rule.
 */
export function checkConditions(conditions: Conditions | undefined, ctx: EvaluationContext): ConditionsResult {
  return evaluateConditions(conditions, (condition) => ({
    ...condition,
    key: substituteVariables(condition.key ?? null, ctx, { missing: 'empty' }),
    value: substituteVariables(condition.value ?? null, ctx, { missing: 'empty' }),
  }));
}
