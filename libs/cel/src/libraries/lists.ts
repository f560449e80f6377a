import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';

/**
 * Kubernetes' CEL list library: isSorted, sum, min, max, indexOf, lastIndexOf. Elements compare
 * as CEL orders ints, doubles, strings, bools and durations or timestamps by value.
 */
export function registerLists(env: Environment): void {
  env.registerFunction('list.isSorted(): bool', (list: unknown[]) =>
    list.every((item, i) => i === 0 || compare(list[i - 1], item) <= 0),
  );
  env.registerFunction('list.sum(): dyn', (list: unknown[]) => {
    if (list.length === 0) return 0n;
    return list.reduce((total, item) => add(total, item));
  });
  env.registerFunction('list.min(): dyn', (list: unknown[]) => extreme(list, 'min', (a, b) => compare(a, b) < 0));
  env.registerFunction('list.max(): dyn', (list: unknown[]) => extreme(list, 'max', (a, b) => compare(a, b) > 0));
  env.registerFunction('list.indexOf(dyn): int', (list: unknown[], wanted: unknown) =>
    BigInt(list.findIndex((item) => same(item, wanted))),
  );
  env.registerFunction('list.lastIndexOf(dyn): int', (list: unknown[], wanted: unknown) =>
    BigInt(list.findLastIndex((item) => same(item, wanted))),
  );
}

function extreme(list: unknown[], name: string, better: (a: unknown, b: unknown) => boolean): unknown {
  if (list.length === 0) throw celError(`${name} called on an empty list`);
  return list.reduce((best, item) => (better(item, best) ? item : best));
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a + b;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  throw celError(`sum: cannot add ${typeName(a)} and ${typeName(b)}`);
}

function compare(a: unknown, b: unknown): number {
  const comparable =
    (typeof a === typeof b && ['bigint', 'number', 'string', 'boolean'].includes(typeof a)) ||
    (a instanceof Date && b instanceof Date);
  if (!comparable) throw celError(`cannot compare ${typeName(a)} and ${typeName(b)}`);
  const x = a as number;
  const y = b as number;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Equality for scalars; lists and maps are compared by their JSON form. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `${item}n`;
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      return Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    return item;
  });
}

function typeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'object' ? 'map' : typeof value;
}
