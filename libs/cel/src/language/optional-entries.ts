import { Optional } from '@marcbachmann/cel-js';
import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType } from './internals';
import { OPTIONAL_ENTRY } from './syntax';
import { celError } from './values';

/** Whether the parser marked this node as written with a leading `?` (see syntax.ts). */
export function isOptionalEntry(node: unknown): boolean {
  return !!(node as AstNode | undefined)?.meta?.[OPTIONAL_ENTRY];
}

/**
 * Optional list elements `[?x]` and map entries `{?k: v}`: the element or value is an optional,
 * included when it has a value and left out when it is none. A `?` anywhere else is a syntax error.
 */
export function fixOptionalEntries(node: AstNode): void {
  if (node.op === 'list') {
    const elements = node.args as unknown as AstNode[];
    elements.forEach((element) => allowed.add(element));
    if (elements.some(isOptionalEntry)) {
      node.setMeta('check', checkList);
      node.setMeta('evaluate', evaluateList);
    }
  } else if (node.op === 'map') {
    const entries = node.args as unknown as [AstNode, AstNode][];
    entries.forEach(([key]) => allowed.add(key));
    if (entries.some(([key]) => isOptionalEntry(key))) node.setMeta('check', checkMap);
  } else if (isOptionalEntry(node) && !allowed.has(node)) {
    throw celError("'?' marks only list elements and map keys", node);
  }
}

/** Nodes where a `?` mark is valid; filled as parents are visited before their children. */
const allowed = new WeakSet<AstNode>();

function entryType(checker: CelChecker, type: CelType, node: AstNode): CelType {
  if (type.kind === 'dyn') return type;
  if (type.kind !== 'optional')
    throw checker.createError('optional_expected', `'?' needs an optional, got '${type.name}'`, node);
  return type.valueType ?? checker.dynType;
}

function common(checker: CelChecker, types: CelType[]): CelType {
  const first = types[0];
  return first && types.every((type) => type === first) ? first : checker.dynType;
}

function checkList(checker: CelChecker, ast: AstNode, ctx: CelContext): CelType {
  const elements = ast.args as unknown as AstNode[];
  const types = elements.map((element) => {
    const type = checker.check(element, ctx);
    return isOptionalEntry(element) ? entryType(checker, type, element) : type;
  });
  return checker.registry.getListType(common(checker, types));
}

function evaluateList(evaluator: CelEvaluator, ast: AstNode, ctx: CelContext): unknown {
  const out: unknown[] = [];
  for (const element of ast.args as unknown as AstNode[]) {
    const value = evaluator.run(element, ctx);
    if (!isOptionalEntry(element)) {
      out.push(value);
      continue;
    }
    if (!(value instanceof Optional)) throw celError("'?' needs an optional value", element);
    if (value.hasValue()) out.push(value.value());
  }
  return out;
}

function checkMap(checker: CelChecker, ast: AstNode, ctx: CelContext): CelType {
  const entries = ast.args as unknown as [AstNode, AstNode][];
  const keys = entries.map(([key]) => checker.check(key, ctx));
  const values = entries.map(([key, value]) => {
    const type = checker.check(value, ctx);
    return isOptionalEntry(key) ? entryType(checker, type, value) : type;
  });
  return checker.registry.getMapType(common(checker, keys), common(checker, values));
}

/** A map entry's value, or undefined when an optional entry is none (literals.ts leaves it out). */
export function entryValue(key: AstNode, value: unknown): unknown {
  if (!isOptionalEntry(key)) return value;
  if (!(value instanceof Optional)) throw celError("'?' needs an optional value", key);
  return value.hasValue() ? value.value() : undefined;
}
