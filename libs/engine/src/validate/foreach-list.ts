import type { JsonValue } from '../json';
import type { EvaluationContext } from '../variables';

/**
 * Evaluates a foreach `list` expression. A result that is not an array is treated as a one-element
 * list, as Kyverno does, so `list: request.object` iterates once.
 */
export function evaluateForeachList(list: string, ctx: EvaluationContext): JsonValue[] {
  const expression = list.trim().replace(/^\{\{(.*)\}\}$/s, '$1').trim();
  const result = ctx.query(expression);
  return Array.isArray(result) ? result : [result];
}

/** Adds the current element to the context under Kyverno's names (`element`, `elementIndex`, and per nesting level). */
export function addElement(ctx: EvaluationContext, element: JsonValue, index: number, nesting: number): void {
  ctx.add('element', element);
  ctx.add('elementIndex', index);
  ctx.add(`element${nesting}`, element);
  ctx.add(`elementIndex${nesting}`, index);
}
