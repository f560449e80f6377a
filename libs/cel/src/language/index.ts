import type { Environment } from '@marcbachmann/cel-js';
import { fixAsyncQuantifier } from './async-quantifiers';
import { registerTwoVarComprehensions } from './comprehensions';
import { fixConstantList } from './constants';
import type { AstNode } from './internals';
import { fixUintIndex } from './indexing';
import { fixComprehensionRange, fixMapLiteral } from './literals';
import { fixOperators } from './operators';
import { fixOptionalSelection, fixPlainOrReceiver, fixSelectionOperand, registerOptionals } from './optionals';
import { fixOptionalEntries } from './optional-entries';
import { fixObjectConstruction } from './objects';
import { fixHas } from './presence';
import { fixQualifiedNames } from './qualified';
import { installSyntax } from './syntax';
import { fixUncheckedEvaluation } from './unchecked';
import { fixDurationPlusTimestamp, fixOffsetZones, fixRanges, registerConversions } from './ranges';

/**
 * CEL language pieces cel-js 8.0.0 lacks or gets wrong, fixed in Edict's layer: registered on the
 * base environment (macros, functions, operators) ...
 */
export function registerLanguage(env: Environment): void {
  installSyntax();
  registerTwoVarComprehensions(env);
  registerOptionals(env);
  registerConversions(env);
}

/** ... and applied to every parsed tree before it is type-checked (per-node overrides). */
export function rewriteLanguage(root: unknown, env: Environment): void {
  walk(root, (node) => {
    if (fixQualifiedNames(node, env)) return;
    fixOptionalEntries(node);
    fixMapLiteral(node);
    fixObjectConstruction(node);
    fixComprehensionRange(node);
    fixAsyncQuantifier(node);
    fixHas(node);
    fixOperators(node);
    fixSelectionOperand(node);
    fixOptionalSelection(node);
    fixPlainOrReceiver(node);
    fixRanges(node);
    fixConstantList(node);
    fixDurationPlusTimestamp(node);
    fixOffsetZones(node);
    fixUintIndex(node);
    fixUncheckedEvaluation(node);
  });
}

function walk(node: unknown, visit: (node: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (!node || typeof node !== 'object' || typeof (node as AstNode).op !== 'string') return;
  const ast = node as AstNode;
  visit(ast);
  walk(ast.args, visit);
}
