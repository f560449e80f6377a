import { evaluateConditions, type ConditionsResult } from '../conditions';
import type { JsonValue } from '@edict/foundation';
import type { Condition, Conditions } from '../policy/types';
import {
  prepareSubstitution,
  substituteVariables,
  type EvaluationContext,
  type PreparedSubstitution,
} from '../variables';

/**
 * Evaluates preconditions, deny conditions or exception conditions against the context. As in
 * Kyverno, each condition is substituted only when it is reached, so a broken variable after the
 * deciding condition never fails the rule; one that is reached does.
 */
export function checkConditions(conditions: Conditions | undefined, ctx: EvaluationContext): ConditionsResult {
  return evaluateConditions(conditions, (condition) => substituted(condition, ctx));
}

/** Conditions checked the way `checkConditions` checks them, with each key and value prepared once. */
export type PreparedConditions = (ctx: EvaluationContext) => ConditionsResult;

export function prepareConditions(conditions: Conditions | undefined): PreparedConditions {
  const prepared = new Map<Condition, { key: PreparedSubstitution; value: PreparedSubstitution }>();
  for (const condition of listedConditions(conditions)) {
    if (condition === null || typeof condition !== 'object') continue;
    prepared.set(condition, {
      key: prepareSubstitution(condition.key ?? null),
      value: prepareSubstitution(condition.value ?? null),
    });
  }
  return (ctx) =>
    evaluateConditions(conditions, (condition) => {
      const operands = prepared.get(condition);
      if (!operands) return substituted(condition, ctx);
      return withOperands(
        condition,
        preparedOperand(operands.key, ctx, 'key'),
        preparedOperand(operands.value, ctx, 'value'),
      );
    });
}

function listedConditions(conditions: Conditions | undefined): (Condition | null | undefined)[] {
  if (Array.isArray(conditions)) return conditions;
  if (conditions === null || typeof conditions !== 'object') return [];
  return [conditions.any, conditions.all].flatMap((list): Condition[] => (Array.isArray(list) ? list : []));
}

function substituted(condition: Condition, ctx: EvaluationContext): Condition {
  return withOperands(
    condition,
    interpretedOperand(condition.key ?? null, ctx, 'key'),
    interpretedOperand(condition.value ?? null, ctx, 'value'),
  );
}

/**
 * The condition as evaluated: its operator and message with the substituted operands. Written out
 * rather than spread: a spread followed by more keys takes V8's slow generic path, per condition.
 */
function withOperands(condition: Condition, key: JsonValue, value: JsonValue): Condition {
  const evaluated: Condition = { key, operator: condition.operator, value };
  if (condition.message !== undefined) evaluated.message = condition.message;
  return evaluated;
}

// The two below are plain functions rather than one taking a callback: conditions are evaluated
// per rule and per foreach element, and a closure per operand is garbage on that path.

function preparedOperand(substitution: PreparedSubstitution, ctx: EvaluationContext, part: Operand): JsonValue {
  try {
    return substitution(ctx);
  } catch (error) {
    throw operandError(part, error);
  }
}

function interpretedOperand(value: JsonValue, ctx: EvaluationContext, part: Operand): JsonValue {
  try {
    return substituteVariables(value, ctx);
  } catch (error) {
    throw operandError(part, error);
  }
}

type Operand = 'key' | 'value';

function operandError(part: Operand, error: unknown): Error {
  return new Error(`failed to substitute variables in condition ${part}: ${(error as Error).message}`);
}
