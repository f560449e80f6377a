import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode, CelContext, CelEvaluator, CelType } from './internals';
import { celError } from './values';

interface Variables {
  getVariable(name: string): { type: CelType } | undefined;
  getValue(name: string): unknown;
}

/**
 * Variables with dotted names (`a.b.c` declared as one name): CEL resolves a selection chain to the
 * longest declared name it spells; cel-js reads `a` and selects `b`, `c`. The outermost selection
 * whose path is declared becomes that variable (the tree is walked from the top); true when it did.
 */
export function fixQualifiedNames(node: AstNode, env: Environment): boolean {
  if (node.op !== '.') return false;
  const path = dottedPath(node);
  if (!path || !env.hasVariable(path)) return false;
  node.setMeta('check', (_checker: unknown, ast: AstNode, ctx: CelContext) => {
    const variable = (ctx as unknown as Variables).getVariable(path);
    if (!variable) throw celError(`unknown variable: ${path}`, ast);
    return variable.type;
  });
  node.setMeta('evaluate', (_evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    const value = (ctx as unknown as Variables).getValue(path);
    if (value === undefined) throw celError(`unknown variable: ${path}`, ast);
    return value;
  });
  return true;
}

function dottedPath(node: AstNode): string | undefined {
  if (node.op === 'id') return node.args as string;
  if (node.op !== '.') return undefined;
  const [operand, field] = node.args as unknown as [AstNode, string];
  const prefix = dottedPath(operand);
  return prefix === undefined ? undefined : `${prefix}.${field}`;
}
