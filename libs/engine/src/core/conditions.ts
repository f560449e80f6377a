import { evaluateConditions, type ConditionsResult } from '../conditions';
import type { JsonValue } from '../json';
import type { Conditions } from '../policy/types';
import { substituteVariables, type EvaluationContext } from '../variables';

/**
 * Evaluates preconditions, deny conditions or exception conditions against the context. As in
 * Kyverno, each condition is substituted only when it is reached, so a broken variable after the
 * deciding condition never fails the rule; one that is reached does.
 */
export function checkConditions(conditions: Conditions | undefined, ctx: EvaluationContext): ConditionsResult {
  return evaluateConditions(conditions, (condition) => ({
    ...condition,
    key: substitute(condition.key, ctx, 'key'),
    value: substitute(condition.value, ctx, 'value'),
  }));
}

function substitute(value: JsonValue | undefined, ctx: EvaluationContext, part: 'key' | 'value'): JsonValue {
  try {
    return substituteVariables(value ?? null, ctx);
  } catch (error) {
    throw new Error(`failed to substitute variables in condition ${part}: ${(error as Error).message}`);
  }
}
