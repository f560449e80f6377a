import type { AstNode, CelContext, CelEvaluator } from './internals';
import { isUint } from './literals';

type Handle = (left: unknown, right: unknown, ast: AstNode, evaluator: CelEvaluator) => unknown;

/** A list indexed by a uint (`[7, 8, 9][dyn(0u)]`), which cel-js answers "No such key". */
export function fixUintIndex(node: AstNode): void {
  if (node.op !== '[]') return;
  node.setMeta('evaluate', (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    const [left, right] = ast.args as unknown as [AstNode, AstNode];
    const list = evaluator.run(left, ctx);
    let index = evaluator.run(right, ctx);
    const handle = (ast as unknown as { handle: Handle }).handle;
    if (list instanceof Promise || index instanceof Promise)
      return Promise.all([list, index]).then(([l, i]) =>
        handle(l, Array.isArray(l) && isUint(i) ? i.valueOf() : i, ast, evaluator),
      );
    if (Array.isArray(list) && isUint(index)) index = index.valueOf();
    return handle(list, index, ast, evaluator);
  });
}
