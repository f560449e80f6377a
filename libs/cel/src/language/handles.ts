import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType } from './internals';

/** What cel-js calls to apply a binary operator or a selection once its operands are evaluated. */
export type Handle = (left: unknown, right: unknown, ast: AstNode, evaluator: CelEvaluator) => unknown;

type Check = (checker: CelChecker, ast: AstNode, ctx: CelContext) => CelType;
type Checked = AstNode & {
  handle?: Handle;
  left?: AstNode & { checkedType?: CelType };
  right?: AstNode & { checkedType?: CelType };
};

/**
 * Replaces the handler cel-js picks for a node when checking it (`ast.handle`), keeping its
 * evaluation path: the operands are evaluated by cel-js as before and only the application
 * changes, which costs one call per evaluation. `replace` sees the original handler and the
 * checked node and returns the new handler, or undefined to keep it. Runs even when the check
 * fails, for unchecked evaluation (see unchecked.ts). With `operands: 'as given'` the new handler
 * receives operands as cel-js passes them (possibly promises), saving a call.
 */
export function replaceHandle(
  node: AstNode,
  replace: (original: Handle, ast: Checked) => Handle | undefined,
  operands: 'settled' | 'as given' = 'settled',
): void {
  const check = node.meta.check as Check;
  node.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext) => {
    try {
      return check(checker, ast, ctx);
    } finally {
      const checked = ast as Checked;
      const original = checked.handle;
      const replaced = original && replace(original, checked);
      if (replaced) checked.handle = operands === 'settled' ? settled(replaced) : replaced;
    }
  });
}

/** The handler applied to settled operands (cel-js hands promises on when an operand is asynchronous). */
function settled(handle: Handle): Handle {
  return (left, right, ast, evaluator) =>
    left instanceof Promise || right instanceof Promise
      ? Promise.all([left, right]).then(([l, r]) => handle(l, r, ast, evaluator))
      : handle(left, right, ast, evaluator);
}

/**
 * Operand types cel-js has no overload for but CEL has: when cel-js's check of a binary node fails,
 * `accept` may take the (checked) operand types and return the handler to apply; the node is then
 * typed bool. Used instead of `registerOperator`, which marks every overload of the operator as
 * possibly asynchronous (cel-js ignores `async: false` for binary operators).
 */
export function acceptOperands(
  node: AstNode,
  accept: (left: CelType | undefined, right: CelType | undefined) => Handle | undefined,
): void {
  const check = node.meta.check as Check;
  node.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext) => {
    try {
      return check(checker, ast, ctx);
    } catch (error) {
      const [left, right] = ast.args as unknown as [
        AstNode & { checkedType?: CelType },
        AstNode & { checkedType?: CelType },
      ];
      const handle = accept(left.checkedType, right.checkedType);
      if (!handle) throw error;
      (ast as Checked).handle = settled(handle);
      return checker.boolType;
    }
  });
}
