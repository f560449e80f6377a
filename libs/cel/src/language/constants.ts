import { chargeCel } from '../meter';
import type { AstNode, CelContext, CelEvaluator } from './internals';

type Evaluate = (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => unknown;

/**
 * A list literal of literals only (`['AUDIT_WRITE', 'CHOWN']`, policies' allowed values) is the same
 * list on every evaluation: built once, then copied (cel-js runs every element through the
 * evaluator each time). The meter is charged the steps of the elements it no longer runs.
 */
export function fixConstantList(node: AstNode): void {
  if (!isConstantList(node)) return;
  const original = node.meta.evaluate as Evaluate;
  let built: unknown[] | undefined;
  node.setMeta('evaluate', (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    if (built === undefined) {
      const value = original(evaluator, ast, ctx);
      if (!Array.isArray(value)) return value;
      built = value;
      return value.slice();
    }
    chargeCel(built.length);
    return built.slice();
  });
}

/** A non-empty list literal whose elements are all literals (strings, numbers, bools, null). */
export function isConstantList(node: AstNode | undefined): node is AstNode {
  if (node?.op !== 'list') return false;
  const elements = node.args as unknown as AstNode[];
  return Array.isArray(elements) && elements.length > 0 && elements.every((element) => isPrimitiveLiteral(element));
}

/** The literals of a constant list (see isConstantList). */
export function literalsOf(node: AstNode): unknown[] {
  return (node.args as unknown as AstNode[]).map((element) => element.args);
}

function isPrimitiveLiteral(node: AstNode | undefined): boolean {
  if (node?.op !== 'value') return false;
  const value = node.args as unknown;
  return value === null || ['string', 'bigint', 'number', 'boolean'].includes(typeof value);
}
