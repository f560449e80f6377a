import { replaceHandle } from './handles';
import type { AstNode } from './internals';
import { isUint } from './literals';

/** A list indexed by a uint (`[7, 8, 9][dyn(0u)]`), which cel-js answers "No such key". */
export function fixUintIndex(node: AstNode): void {
  if (node.op !== '[]') return;
  replaceHandle(
    node,
    (original) => (left, right, ast, evaluator) =>
      original(left, Array.isArray(left) && isUint(right) ? right.valueOf() : right, ast, evaluator),
  );
}
