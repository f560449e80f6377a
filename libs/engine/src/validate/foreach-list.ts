import type { JsonValue } from '../json';
import type { EvaluationContext } from '../variables';

/**
 * Evaluates a foreach `list` expression. A result that is not an array is treated as a one-element
 * list, as Kyverno does, so `list: request.object` iterates once.
 */
export function evaluateForeachList(list: string, ctx: EvaluationContext): JsonValue[] {
  const expression = list
    .trim()
    .replace(/^\{\{(.*)\}\}$/s, '$1')
    .trim();
  const result = ctx.query(expression);
  return Array.isArray(result) ? result : [result];
}
