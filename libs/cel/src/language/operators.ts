import type { AstNode, CelContext, CelEvaluator } from './internals';
import { celEquals, celIn } from './equality';
import { isUint } from './literals';

type Handle = (left: unknown, right: unknown, ast: AstNode, evaluator: CelEvaluator) => unknown;
type Binary = AstNode & { left: AstNode; right: AstNode; handle: Handle };

/**
 * Equality, membership and ordering as CEL defines them, over cel-js's operator dispatch: `==`,
 * `!=` and `in` by CEL equality (see equality.ts); `<`, `<=`, `>`, `>=` between an int or uint and a
 * double compare the integer converted to double, as cel-go does (so `9223372036854775807 <
 * 9223372036854775808.0` is false). Everything else goes to the handler cel-js chose when checking.
 */
export function fixOperators(node: AstNode): void {
  switch (node.op) {
    case '==':
    case '!=':
    case 'in':
    case '<':
    case '<=':
    case '>':
    case '>=':
      node.setMeta('evaluate', evaluateOperator);
  }
}

function evaluateOperator(evaluator: CelEvaluator, ast: AstNode, ctx: CelContext): unknown {
  const node = ast as Binary;
  const left = evaluator.run(node.left, ctx);
  const right = evaluator.run(node.right, ctx);
  if (left instanceof Promise || right instanceof Promise) {
    return Promise.all([left, right]).then(([l, r]) => apply(node, l, r, evaluator));
  }
  return apply(node, left, right, evaluator);
}

function apply(node: Binary, left: unknown, right: unknown, evaluator: CelEvaluator): unknown {
  switch (node.op as string) {
    case '==':
      return celEquals(left, right, evaluator);
    case '!=':
      return !celEquals(left, right, evaluator);
    case 'in': {
      const found = celIn(left, right, evaluator);
      if (found !== undefined) return found;
      break;
    }
    default: {
      const compared = compareMixed(node.op as string, left, right);
      if (compared !== undefined) return compared;
    }
  }
  return node.handle(left, right, node, evaluator);
}

function compareMixed(op: string, left: unknown, right: unknown): boolean | undefined {
  const l = typeof left === 'bigint' ? Number(left) : isUint(left) ? Number(left.valueOf()) : left;
  const r = typeof right === 'bigint' ? Number(right) : isUint(right) ? Number(right.valueOf()) : right;
  if ((typeof left === 'number') === (typeof right === 'number')) return undefined;
  if (typeof l !== 'number' || typeof r !== 'number') return undefined;
  switch (op) {
    case '<':
      return l < r;
    case '<=':
      return l <= r;
    case '>':
      return l > r;
    default:
      return l >= r;
  }
}
