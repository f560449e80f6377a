import type { ConditionsResult } from '../conditions';
import type { JsonValue } from '../json';
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
}

export const INTERPRETER: Evaluators = {
  conditions: checkConditions,
  substitute: (value, ctx) => substituteVariables(value, ctx),
  foreachList: evaluateForeachList,
};

export function compileEvaluators(
  conditionBlocks: readonly (Conditions | undefined)[],
  values: readonly JsonValue[],
  foreachLists: readonly string[] = [],
): Evaluators {
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
  };
}
