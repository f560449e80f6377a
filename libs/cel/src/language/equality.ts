import { Optional } from '@marcbachmann/cel-js';
import type { CelEvaluator } from './internals';
import { isUint } from './literals';

/**
 * CEL's equality (`==`, `!=`, `in`): defined for any two values, false across types, numbers
 * compared by value across int, uint and double (NaN equals nothing), lists and maps element by
 * element with the same rules, map keys found across numeric types. cel-js 8.0.0 raises "no such
 * overload" at run time for `dyn(1) == 'a'` or `[1] == [1.0]`-like mixes and answers false for
 * `dyn(3u) in [3]`. Values of registered types fall back to cel-js's own `==` overloads.
 */
export function celEquals(a: unknown, b: unknown, evaluator: CelEvaluator): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && numbersEqual(na, nb);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (a instanceof Optional || b instanceof Optional) {
    if (!(a instanceof Optional && b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value(), evaluator);
  }
  const listA = asList(a);
  const listB = asList(b);
  if (listA || listB) {
    return (
      !!listA && !!listB && listA.length === listB.length && listA.every((x, i) => celEquals(x, listB[i], evaluator))
    );
  }
  const mapA = asMap(a);
  const mapB = asMap(b);
  if (mapA || mapB) {
    if (!mapA || !mapB || mapA.size !== mapB.size) return false;
    for (const [key, value] of mapA) {
      const other = lookup(mapB, key);
      if (other === undefined || !celEquals(value, other, evaluator)) return false;
    }
    return true;
  }
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (evaluator.debugType(a) !== evaluator.debugType(b)) return false;
  return sameByOverload(a, b, evaluator);
}

/** Registered types (durations, type values, library objects) keep cel-js's `==` overloads. */
function sameByOverload(a: unknown, b: unknown, evaluator: CelEvaluator): boolean {
  const registry = (evaluator as unknown as { registry: OperatorRegistry }).registry;
  const candidates = registry.operatorCandidates?.('==');
  const overload = candidates?.findBinaryOverload(evaluator.debugType(a), evaluator.debugType(b));
  if (!overload) return false;
  return overload.handler(a, b, undefined, evaluator) === true;
}

interface OperatorRegistry {
  operatorCandidates?(op: string): {
    findBinaryOverload(left: unknown, right: unknown): { handler: (...args: unknown[]) => unknown } | false;
  };
}

/** `in`: list membership by CEL equality, map key presence across numeric key types. */
export function celIn(element: unknown, container: unknown, evaluator: CelEvaluator): boolean | undefined {
  const list = asList(container);
  if (list) return list.some((item) => celEquals(element, item, evaluator));
  const map = asMap(container);
  if (map) return lookup(map, element) !== undefined;
  return undefined;
}

type Numeric = { readonly int: bigint } | { readonly double: number };

function numeric(value: unknown): Numeric | undefined {
  if (typeof value === 'bigint') return { int: value };
  if (typeof value === 'number') return { double: value };
  if (isUint(value)) return { int: value.valueOf() };
  return undefined;
}

function numbersEqual(a: Numeric, b: Numeric): boolean {
  if ('int' in a && 'int' in b) return a.int === b.int;
  if ('double' in a && 'double' in b) return a.double === b.double;
  const int = 'int' in a ? a.int : (b as { int: bigint }).int;
  const double = 'double' in a ? a.double : (b as { double: number }).double;
  return Number.isInteger(double) && BigInt(double) === int;
}

function asList(value: unknown): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value instanceof Set) return [...value];
  return undefined;
}

function asMap(value: unknown): ReadonlyMap<unknown, unknown> | undefined {
  if (value instanceof Map) return value;
  if (value === null || typeof value !== 'object') return undefined;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== null && proto !== Object.prototype) return undefined;
  return new Map(Object.entries(value));
}

/** A map's value for a key, also under a numeric key of another numeric type with the same value. */
function lookup(map: ReadonlyMap<unknown, unknown>, key: unknown): unknown {
  const direct = map.get(key);
  if (direct !== undefined) return direct;
  const wanted = numeric(key);
  if (!wanted) return undefined;
  for (const [candidate, value] of map) {
    const have = numeric(candidate);
    if (have && numbersEqual(have, wanted)) return value;
  }
  return undefined;
}
