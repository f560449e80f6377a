import type { ConditionsResult } from '../conditions';
import type { JsonValue } from '@edict/foundation';
import { compilePattern, matchPattern, type CompiledPattern, type PatternResult, type WalkBudget } from '../pattern';
import type { Conditions } from '../policy/types';
import {
  prepareSubstitution,
  substituteVariables,
  type EvaluationContext,
  type PreparedSubstitution,
} from '../variables';
import { evaluateForeachList, prepareForeachList, type PreparedForeachList } from '../validate/foreach-list';
import { checkConditions, prepareConditions, type PreparedConditions } from './conditions';

/**
 * How a rule's handlers check the condition blocks and substitute the values written in its policy.
 * The interpreter works from the text every time; a rule's compiled evaluators were prepared once
 * for the rule's own blocks and values (found by identity) and interpret anything else.
 */
export interface Evaluators {
  conditions(conditions: Conditions | undefined, ctx: EvaluationContext): ConditionsResult;
  substitute(value: JsonValue, ctx: EvaluationContext): JsonValue;
  /** A foreach `list`'s elements (see `evaluateForeachList`). */
  foreachList(list: string, ctx: EvaluationContext): JsonValue[];
  /** A validate pattern (variables substituted) against a resource (see `matchPattern`). */
  matchPattern(resource: JsonValue, pattern: JsonValue, budget?: WalkBudget): PatternResult;
}

export const INTERPRETER: Evaluators = {
  conditions: checkConditions,
  substitute: (value, ctx) => substituteVariables(value, ctx),
  foreachList: evaluateForeachList,
  matchPattern,
};

export function compileEvaluators(
  conditionBlocks: readonly (Conditions | undefined)[],
  values: readonly JsonValue[],
  foreachLists: readonly string[] = [],
  patterns: readonly JsonValue[] = [],
): Evaluators {
  // By identity: a pattern without variables is its own substitution; any other is a new value
  // after substitution and goes to the interpreter.
  const compiledPatterns = new Map<JsonValue, CompiledPattern>();
  for (const pattern of patterns)
    if (!compiledPatterns.has(pattern)) compiledPatterns.set(pattern, compilePattern(pattern));
  const lists = new Map<string, PreparedForeachList>();
  for (const list of foreachLists) if (!lists.has(list)) lists.set(list, prepareForeachList(list));
  const conditions = new Map<Conditions, PreparedConditions>();
  for (const block of conditionBlocks) if (block) conditions.set(block, prepareConditions(block));
  const substitutions = new Map<JsonValue, PreparedSubstitution>();
  for (const value of values) substitutions.set(value, prepareSubstitution(value));
  return {
    conditions: (block, ctx) => {
      const prepared = block && conditions.get(block);
      return prepared ? prepared(ctx) : checkConditions(block, ctx);
    },
    substitute: (value, ctx) => {
      const prepared = substitutions.get(value);
      return prepared ? prepared(ctx) : substituteVariables(value, ctx);
    },
    foreachList: (list, ctx) => {
      const prepared = lists.get(list);
      return prepared ? prepared(ctx) : evaluateForeachList(list, ctx);
    },
    matchPattern: (resource, pattern, budget) => {
      const compiled = compiledPatterns.get(pattern);
      return compiled ? compiled(resource, budget) : matchPattern(resource, pattern, budget);
    },
  };
}
