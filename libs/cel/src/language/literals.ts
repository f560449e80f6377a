import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType } from './internals';
import { entryValue } from './optional-entries';
import { celError } from './values';

/**
 * Map literals as CEL defines them. cel-js 8.0.0 builds every map literal as a plain object, so
 * `{1: 'a'}` gets the string key "1" (and comprehensions then bind strings where ints are declared),
 * repeated keys silently keep the last value, and double, null or list keys are accepted. Here a
 * literal with only string keys is still a plain (null-prototype) object, one with other keys a
 * `Map`; repeated keys (`1` and `1u` are the same key) and keys other than int, uint, bool and string
 * are evaluation errors, as in cel-go.
 */
export function fixMapLiteral(node: AstNode): void {
  if (node.op === 'map') node.setMeta('evaluate', evaluateMapLiteral);
}

function evaluateMapLiteral(evaluator: CelEvaluator, ast: AstNode, ctx: CelContext): unknown {
  const entries = ast.args as unknown as [AstNode, AstNode][];
  const values = entries.map(([key, value]) => [evaluator.run(key, ctx), evaluator.run(value, ctx)] as const);
  if (values.some(([key, value]) => key instanceof Promise || value instanceof Promise)) {
    return Promise.all(values.map((pair) => Promise.all(pair))).then((settled) => buildMap(settled, entries));
  }
  return buildMap(values, entries);
}

function buildMap(pairs: readonly (readonly [unknown, unknown])[], entries: [AstNode, AstNode][]): unknown {
  const values = pairs.flatMap(([key, raw], i) => {
    const value = entryValue(entries[i]?.[0] as AstNode, raw);
    return value === undefined ? [] : [[key, value] as const];
  });
  const seen = new Set<string>();
  let allStrings = true;
  values.forEach(([key], i) => {
    const identity = keyIdentity(key);
    if (identity === undefined) throw celError(`unsupported map key type: ${describeKey(key)}`, entries[i]?.[0]);
    if (seen.has(identity)) throw celError(`repeated map key: ${String(key)}`, entries[i]?.[0]);
    seen.add(identity);
    if (typeof key !== 'string') allStrings = false;
  });
  if (!allStrings) return celMap(values);
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of values) out[key as string] = value;
  return out;
}

/** int and uint keys of the same value are one key; undefined for types a map key cannot have. */
function keyIdentity(key: unknown): string | undefined {
  switch (typeof key) {
    case 'string':
      return `s:${key}`;
    case 'bigint':
      return `n:${key}`;
    case 'boolean':
      return `b:${key}`;
    default:
      return isUint(key) ? `n:${key.valueOf()}` : undefined;
  }
}

/**
 * A CEL map with keys other than strings: a `Map` (cel-js recognises maps by their constructor)
 * whose lookups also find numeric keys of another numeric type with the same value, as CEL's
 * heterogeneous key equality asks (`{1u: 'a'}[1]`, `{1: 'a'}[1.0]`).
 */
export function celMap(entries: Iterable<readonly [unknown, unknown]>): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>(entries);
  const find = (key: unknown): [unknown, unknown] | undefined => {
    if (Map.prototype.has.call(map, key)) return [key, Map.prototype.get.call(map, key)];
    const wanted = numericValue(key);
    if (wanted === undefined) return undefined;
    for (const entry of Map.prototype.entries.call(map) as IterableIterator<[unknown, unknown]>) {
      if (numericValue(entry[0]) === wanted) return entry;
    }
    return undefined;
  };
  Object.defineProperties(map, {
    get: { value: (key: unknown) => find(key)?.[1] },
    has: { value: (key: unknown) => find(key) !== undefined },
  });
  return map;
}

/** The exact value of an int, a uint or an integral double, as a bigint. */
function numericValue(key: unknown): bigint | undefined {
  if (typeof key === 'bigint') return key;
  if (typeof key === 'number') return Number.isInteger(key) ? BigInt(key) : undefined;
  return isUint(key) ? key.valueOf() : undefined;
}

/** cel-js's uint values are instances of its UnsignedInt class (not exported under Edict's resolution). */
export function isUint(value: unknown): value is { valueOf(): bigint } {
  return typeof value === 'object' && value !== null && value.constructor?.name === 'UnsignedInt';
}

function describeKey(key: unknown): string {
  if (key === null) return 'null';
  if (typeof key === 'number') return 'double';
  if (Array.isArray(key)) return 'list';
  return typeof key;
}

/**
 * `[]` and `{}` are typed `list<T>` / `map<K, V>` by cel-js; a comprehension over them then checks its
 * body against the free type parameter and cel-js reports overlapping operator overloads
 * (`[].all(e, e > 0)`). A comprehension's range is checked with free parameters read as dyn.
 */
export function fixComprehensionRange(node: AstNode): void {
  const alternate = node.meta.alternate as AstNode | undefined;
  if (alternate?.op !== ('comprehension' as string)) return;
  const range = (alternate.args as unknown as { iterable: AstNode }).iterable;
  if (range.meta.alternate || range.meta.macro) return;
  const check = range.meta.check as (checker: CelChecker, ast: AstNode, ctx: CelContext) => CelType;
  range.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext) =>
    withoutParams(checker, check(checker, ast, ctx)),
  );
}

/** A type with its free type parameters replaced by dyn. */
export function withoutParams(checker: CelChecker, type: CelType): CelType {
  if (type.kind === 'param') return checker.dynType;
  if (type.kind === 'list' && type.valueType)
    return checker.registry.getListType(withoutParams(checker, type.valueType));
  if (type.kind === 'optional' && type.valueType)
    return checker.registry.getOptionalType(withoutParams(checker, type.valueType));
  if (type.kind === 'map' && type.keyType && type.valueType)
    return checker.registry.getMapType(withoutParams(checker, type.keyType), withoutParams(checker, type.valueType));
  return type;
}
