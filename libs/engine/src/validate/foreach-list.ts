import type { JsonValue } from '@edict/foundation';
import { compileDirectJmesPath, type JmesPathQuery } from '@edict/jmespath';
import type { EvaluationContext } from '../variables';

/**
 * Evaluates a foreach `list` expression. A result that is not an array is treated as a one-element
 * list, as Kyverno does, so `list: request.object` iterates once.
 */
export function evaluateForeachList(list: string, ctx: EvaluationContext): JsonValue[] {
  return asList(ctx.query(foreachExpression(list)));
}

/** A foreach list evaluated as `evaluateForeachList` does, its expression compiled once. */
export type PreparedForeachList = (ctx: EvaluationContext) => JsonValue[];

export function prepareForeachList(list: string): PreparedForeachList {
  const expression = foreachExpression(list);
  let query: JmesPathQuery;
  try {
    query = compileDirectJmesPath(expression);
  } catch {
    // An empty or broken expression: the interpreter reports it in its words.
    return (ctx) => evaluateForeachList(list, ctx);
  }
  return (ctx) => asList(ctx.search(query));
}

/** The expression of a list, with the `{{ }}` around it (if any) removed. */
function foreachExpression(list: string): string {
  return list
    .trim()
    .replace(/^\{\{(.*)\}\}$/s, '$1')
    .trim();
}

function asList(result: JsonValue): JsonValue[] {
  return Array.isArray(result) ? result : [result];
}
