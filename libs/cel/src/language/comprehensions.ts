import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType, Macro, MacroCall } from './internals';
import { celMap, withoutParams } from './literals';
import { celError, synchronous } from './values';

/**
 * cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`, in Kubernetes' CEL since 1.32):
 * `all`, `exists`, `existsOne`/`exists_one` with an index/key and a value variable, and
 * `transformList`, `transformMap`, `transformMapEntry` (with an optional filter). Lists bind the
 * index (int) and the element, maps the key and the value.
 */
export function registerTwoVarComprehensions(env: Environment): void {
  const macro = (signature: string, kind: Kind, filtered = false) =>
    env.registerFunction(signature, (call: MacroCall) => twoVarMacro(call, kind, filtered));
  macro('list.all(ast, ast, ast): bool', 'all');
  macro('list.exists(ast, ast, ast): bool', 'exists');
  macro('list.existsOne(ast, ast, ast): bool', 'existsOne');
  macro('list.exists_one(ast, ast, ast): bool', 'existsOne');
  macro('list.transformList(ast, ast, ast): list<dyn>', 'transformList');
  macro('list.transformList(ast, ast, ast, ast): list<dyn>', 'transformList', true);
  macro('list.transformMap(ast, ast, ast): map<dyn, dyn>', 'transformMap');
  macro('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', 'transformMap', true);
  macro('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', 'transformMapEntry');
  macro('list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', 'transformMapEntry', true);
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface TwoVarMacro extends Macro {
  readonly kind: Kind;
  readonly range: AstNode;
  readonly first: string;
  readonly second: string;
  readonly filter: AstNode | undefined;
  readonly body: AstNode;
  readonly call: AstNode;
  firstType?: CelType;
  secondType?: CelType;
}

function twoVarMacro(call: MacroCall, kind: Kind, filtered: boolean): TwoVarMacro {
  const [first, second, ...rest] = call.args;
  const name = (node: AstNode | undefined, which: string): string => {
    if (node?.op !== 'id') throw celError(`${kind}() ${which} variable must be a simple name`, node ?? call.ast);
    return node.args as string;
  };
  const firstName = name(first, 'first');
  const secondName = name(second, 'second');
  if (firstName === secondName) throw celError(`${kind}() variables must differ: ${firstName}`, call.ast);
  if (!call.receiver) throw celError(`${kind}() needs a receiver`, call.ast);
  return {
    kind,
    range: call.receiver,
    first: firstName,
    second: secondName,
    filter: filtered ? rest[0] : undefined,
    body: (filtered ? rest[1] : rest[0]) as AstNode,
    call: call.ast,
    async: false,
    typeCheck: checkTwoVar,
    evaluate: evaluateTwoVar,
  };
}

function checkTwoVar(checker: CelChecker, macro: TwoVarMacro, ctx: CelContext): CelType {
  const rangeType = checker.check(macro.range, ctx);
  let firstType: CelType;
  let secondType: CelType;
  if (rangeType.kind === 'list') {
    firstType = checker.intType;
    secondType = rangeType.valueType ?? checker.dynType;
  } else if (rangeType.kind === 'map') {
    firstType = rangeType.keyType ?? checker.dynType;
    secondType = rangeType.valueType ?? checker.dynType;
  } else if (rangeType.kind === 'dyn') {
    firstType = checker.dynType;
    secondType = checker.dynType;
  } else {
    throw checker.createError(
      'invalid_comprehension_range',
      `${macro.kind}() cannot range over '${rangeType.name}' (must be list, map, or dynamic)`,
      macro.range,
    );
  }
  macro.firstType = firstType = withoutParams(checker, firstType);
  macro.secondType = secondType = withoutParams(checker, secondType);
  const inner = ctx.forkWithVariable(macro.first, firstType).forkWithVariable(macro.second, secondType);
  if (macro.filter) expectBool(checker, checker.check(macro.filter, inner), macro.filter, 'filter');
  const bodyType = checker.check(macro.body, inner);
  switch (macro.kind) {
    case 'all':
    case 'exists':
    case 'existsOne':
      expectBool(checker, bodyType, macro.body, 'predicate');
      return checker.boolType;
    case 'transformList':
      return checker.registry.getListType(bodyType);
    case 'transformMap':
      return checker.registry.getMapType(firstType, bodyType);
    case 'transformMapEntry':
      if (bodyType.kind !== 'map' && bodyType.kind !== 'dyn')
        throw checker.createError('invalid_argument', 'transformMapEntry() must produce a map', macro.body);
      return bodyType.kind === 'map' ? bodyType : checker.getType('map');
  }
}

function expectBool(checker: CelChecker, type: CelType, node: AstNode, what: string): void {
  if (type.kind !== 'dyn' && type.name !== 'bool')
    throw checker.createError('invalid_argument', `${what} must be bool, not '${type.name}'`, node);
}

/** The (index or key, value) pairs a comprehension ranges over. */
function pairs(evaluator: CelEvaluator, range: unknown, node: AstNode): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((value, index) => [BigInt(index), value]);
  if (range instanceof Set) return [...range].map((value, index) => [BigInt(index), value]);
  if (range instanceof Map) return [...range.entries()];
  if (range && typeof range === 'object' && !(range instanceof Uint8Array))
    return Object.entries(range as Record<string, unknown>);
  throw evaluator.createError('invalid_comprehension_range', 'comprehension range must be a list or a map', node);
}

function evaluateTwoVar(evaluator: CelEvaluator, macro: TwoVarMacro, ctx: CelContext): unknown {
  const range = synchronous(evaluator.run(macro.range, ctx), macro.kind, macro.range);
  const run = (node: AstNode, scope: CelContext) => synchronous(evaluator.run(node, scope), macro.kind, node);
  const outer = ctx.forkWithVariable(macro.first, macro.firstType as CelType);
  const inner = outer.forkWithVariable(macro.second, macro.secondType as CelType);
  const bind = (key: unknown, value: unknown): CelContext => {
    outer.setIterValue(key, evaluator);
    return inner.setIterValue(value, evaluator);
  };
  const entries = pairs(evaluator, range, macro.range);
  switch (macro.kind) {
    case 'all':
    case 'exists': {
      const decisive = macro.kind === 'exists';
      let error: unknown;
      for (const [key, value] of entries) {
        const result = synchronous(evaluator.tryEval(macro.body, bind(key, value)), macro.kind, macro.body);
        if (result === decisive) return decisive;
        if (typeof result !== 'boolean') error ??= asError(evaluator, result, macro.body);
      }
      if (error) throw error;
      return !decisive;
    }
    case 'existsOne': {
      let count = 0;
      for (const [key, value] of entries) if (boolOf(evaluator, run(macro.body, bind(key, value)), macro.body)) count++;
      return count === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [key, value] of entries) {
        const scope = bind(key, value);
        if (macro.filter && !boolOf(evaluator, run(macro.filter, scope), macro.filter)) continue;
        out.push(run(macro.body, scope));
      }
      return out;
    }
    case 'transformMap':
    case 'transformMapEntry': {
      const out = new Map<unknown, unknown>();
      for (const [key, value] of entries) {
        const scope = bind(key, value);
        if (macro.filter && !boolOf(evaluator, run(macro.filter, scope), macro.filter)) continue;
        const result = run(macro.body, scope);
        if (macro.kind === 'transformMap') {
          out.set(key, result);
          continue;
        }
        for (const [entryKey, entryValue] of pairs(evaluator, result, macro.body)) {
          if (out.has(entryKey))
            throw celError(`transformMapEntry() produced the key ${String(entryKey)} twice`, macro.body);
          out.set(entryKey, entryValue);
        }
      }
      return toCelMap(out);
    }
  }
}

/** A map as cel-js builds map values: a plain object when every key is a string. */
export function toCelMap(map: Map<unknown, unknown>): unknown {
  if (![...map.keys()].every((key) => typeof key === 'string')) return celMap(map);
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of map) out[key as string] = value;
  return out;
}

function boolOf(evaluator: CelEvaluator, value: unknown, node: AstNode): boolean {
  if (typeof value === 'boolean') return value;
  throw asError(evaluator, value, node);
}

function asError(evaluator: CelEvaluator, value: unknown, node: AstNode): Error {
  if (value instanceof Error) return value;
  return evaluator.createError('invalid_argument', `expected bool, got '${evaluator.debugType(value).name}'`, node);
}
