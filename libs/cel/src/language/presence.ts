import { Optional } from '@marcbachmann/cel-js';
import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType, Macro } from './internals';

/**
 * `has(e.f)` for any operand. cel-js 8.0.0 accepts only a chain of selections rooted at a variable,
 * so `has({'a': 1}.a)` and `has(optional.of(m).f)` do not type-check. Here the operand `e` is
 * evaluated and `f` tested: a map has the key, an object the field, an optional is absent when
 * empty and otherwise tested on its value, as in cel-go.
 */
export function fixHas(node: AstNode): void {
  if (node.op !== 'call' || !node.meta.macro) return;
  const [name, args] = node.args as [string, AstNode[]];
  if (name !== 'has' || args.length !== 1) return;
  const select = args[0] as AstNode;
  // cel-js's own has() handles a chain of selections from a variable (and is cheaper): keep it there.
  if (rootOf(select).op === 'id') return;
  const macro: HasMacro = { select, async: false, typeCheck: checkHas, evaluate: evaluateHas };
  node.setMeta('macro', macro);
}

interface HasMacro extends Macro {
  readonly select: AstNode;
}

function checkHas(checker: CelChecker, macro: HasMacro, ctx: CelContext): CelType {
  const select = macro.select;
  if (select.op !== '.' && select.op !== '.?')
    throw checker.createError('invalid_macro_argument', 'has() invalid argument', select);
  const operand = checker.check((select.args as [AstNode, string])[0], ctx);
  if (!['map', 'dyn', 'optional', 'message'].includes(operand.kind))
    throw checker.createError('invalid_macro_argument', `has() cannot test a field of '${operand.name}'`, select);
  return checker.boolType;
}

function evaluateHas(evaluator: CelEvaluator, macro: HasMacro, ctx: CelContext): unknown {
  const [operand, field] = macro.select.args as [AstNode, string];
  const value = evaluator.run(operand, ctx);
  if (value instanceof Promise) return value.then((settled) => present(evaluator, settled, field, macro.select));
  return present(evaluator, value, field, macro.select);
}

function present(evaluator: CelEvaluator, value: unknown, field: string, node: AstNode): boolean {
  if (value instanceof Optional) return value.hasValue() && present(evaluator, value.value(), field, node);
  if (value instanceof Map) return value.has(field);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto === null || proto === Object.prototype) return Object.hasOwn(value, field);
    const type = evaluator.debugType(value) as CelType & { fieldLazy?: (...args: unknown[]) => unknown };
    return type.fieldLazy?.(value, field, node, evaluator) !== undefined;
  }
  throw evaluator.createError(
    'no_such_field',
    `has() cannot test a field of '${evaluator.debugType(value).name}'`,
    node,
  );
}

function rootOf(node: AstNode): AstNode {
  let current = node;
  while (current.op === '.' || current.op === '.?') current = (current.args as unknown as [AstNode, string])[0];
  return current;
}
