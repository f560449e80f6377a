import { EvaluationError } from '@marcbachmann/cel-js';
import type { AstNode, CelChecker, CelContext, CelType } from './internals';

type Check = (checker: CelChecker, ast: AstNode, ctx: CelContext) => CelType;

/**
 * Evaluation of an expression that was never type-checked, as cel-go evaluates it: a sub-expression
 * that would not check (an unknown variable or function, a mistyped operand) is an error only when
 * it is evaluated, so `x || true` is true. cel-js checks the whole tree before evaluating an
 * unchecked expression and fails at once. Edict always checks (compileCel), so this changes nothing
 * for policies: it applies only under cel-js's evaluation-time checker.
 */
export function fixUncheckedEvaluation(node: AstNode): void {
  if (node.meta.alternate || node.meta.macro) return;
  const check = node.meta.check as Check;
  node.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext): CelType => {
    if (!evaluating(checker)) return check(checker, ast, ctx);
    try {
      return check(checker, ast, ctx);
    } catch (error) {
      switch (ast.op as string) {
        case '&&':
        case '||':
          // Operands of any type: the evaluation decides (a non-bool operand is an error unless absorbed).
          return checker.boolType;
        case '==':
        case '!=':
          // CEL's equality is defined between any two values (false across types).
          return checker.boolType;
        case '?:':
          return checker.dynType;
        default:
          ast.setMeta('evaluate', () => {
            throw error;
          });
          return checker.dynType;
      }
    }
  });
}

const kinds = new WeakMap<object, boolean>();

/** cel-js's evaluation-time checker makes EvaluationErrors, the static checker TypeErrors. */
function evaluating(checker: CelChecker): boolean {
  let known = kinds.get(checker);
  if (known === undefined) {
    known = checker.createError('probe', 'probe', undefined as unknown as AstNode) instanceof EvaluationError;
    kinds.set(checker, known);
  }
  return known;
}
