import type { AstNode, CelChecker } from './internals';

/**
 * `cond ? JSONPatch{...} : null`: cel-go lets a `null` branch join a message (or any non-primitive)
 * type, as null is assignable to messages; cel-js refuses to unify them. A literal `null` branch of
 * a conditional is checked as dyn, so the conditional takes the other branch's type joined with
 * dyn; its value is still null.
 */
export function fixNullBranches(node: AstNode): void {
  if (node.op !== '?:') return;
  const args = node.args as unknown as AstNode[];
  for (const branch of [args[1], args[2]]) {
    if (branch?.op === 'value' && (branch.args as unknown) === null) {
      branch.setMeta('check', (checker: CelChecker) => checker.dynType);
    }
  }
}
