import { celEquals, celIn } from './equality';
import { replaceHandle } from './handles';
import type { AstNode } from './internals';
import { isUint } from './literals';

/**
 * Equality, membership and ordering as CEL defines them, over cel-js's operator dispatch: `==`,
 * `!=` and `in` by CEL equality (see equality.ts); `<`, `<=`, `>`, `>=` between an int or uint and a
 * double compare the integer converted to double, as cel-go does (so `9223372036854775807 <
 * 9223372036854775808.0` is false). Everything else goes to the handler cel-js chose when checking.
 */
export function fixOperators(node: AstNode): void {
  switch (node.op as string) {
    case '==':
      return replaceHandle(node, () => (left, right, _ast, evaluator) => celEquals(left, right, evaluator));
    case '!=':
      return replaceHandle(node, () => (left, right, _ast, evaluator) => !celEquals(left, right, evaluator));
    case 'in':
      return replaceHandle(
        node,
        (original) => (left, right, ast, evaluator) =>
          celIn(left, right, evaluator) ?? original(left, right, ast, evaluator),
      );
    case '<':
    case '<=':
    case '>':
    case '>=':
      return replaceHandle(
        node,
        (original) => (left, right, ast, evaluator) =>
          compareMixed(node.op as string, left, right) ?? original(left, right, ast, evaluator),
      );
  }
}

function compareMixed(op: string, left: unknown, right: unknown): boolean | undefined {
  if ((typeof left === 'number') === (typeof right === 'number')) return undefined;
  const l = typeof left === 'bigint' ? Number(left) : isUint(left) ? Number(left.valueOf()) : left;
  const r = typeof right === 'bigint' ? Number(right) : isUint(right) ? Number(right.valueOf()) : right;
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
