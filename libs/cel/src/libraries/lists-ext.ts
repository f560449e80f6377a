import { Optional, type Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { namespaceFunction } from './namespace';
import {
  celCompare,
  celEqual,
  celTypeName,
  chargeCelSort,
  chargeList,
  checkListLength,
  isUint,
  numeric,
} from './runtime';

/**
 * cel-go's lists extension at the version Kyverno enables (3): `lists.range`, slice, flatten (with a
 * depth), sort, sortBy, distinct, reverse; and first and last (optional results).
 */
export function registerListsExtension(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown);
  };
  namespaceFunction(env, 'lists.range(int): list<int>', (size: bigint) => {
    if (size < 0n) throw celError(`lists.range: size must be non-negative, got ${size}`);
    checkListLength(size);
    chargeList(Number(size));
    return Array.from({ length: Number(size) }, (_, i) => BigInt(i));
  });
  fn('list<T>.slice(int, int): list<T>', (list: unknown[], start: bigint, end: bigint) => {
    if (start < 0n || end < 0n) throw celError(`cannot slice(${start}, ${end}), negative indexes not supported`);
    if (start > end) {
      throw celError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
    }
    if (BigInt(list.length) < end) throw celError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
    chargeList(Number(end - start));
    return list.slice(Number(start), Number(end));
  });
  fn('list.flatten(): list', (list: unknown[]) => flatten(list, 1n));
  fn('list.flatten(int): list', (list: unknown[], depth: bigint) => flatten(list, depth));
  fn('list<T>.sort(): list<T>', (list: unknown[]) => sortByKeys(list, list));
  fn('list<T>.distinct(): list<T>', (list: unknown[]) => distinct(list));
  fn('list<T>.reverse(): list<T>', (list: unknown[]) => {
    chargeList(list.length);
    return [...list].reverse();
  });
  fn('list<T>.first(): optional<T>', (list: unknown[]) => (list.length ? Optional.of(list[0]) : Optional.none()));
  fn('list<T>.last(): optional<T>', (list: unknown[]) => (list.length ? Optional.of(list.at(-1)) : Optional.none()));
  env.registerFunction('list.sortBy(ast, ast): list', sortByMacro);
}

function flatten(list: unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw celError('level must be non-negative');
  const out: unknown[] = [];
  const walk = (items: unknown[], level: bigint): void => {
    chargeList(items.length);
    for (const item of items) {
      if (Array.isArray(item) && level > 0n) walk(item, level - 1n);
      else out.push(item);
    }
    checkListLength(out.length);
  };
  walk(list, depth);
  return out;
}

/** Sorts `list` by the keys at the same positions (sort: by the elements themselves); stable. */
function sortByKeys(list: unknown[], keys: unknown[]): unknown[] {
  if (list.length !== keys.length) {
    throw celError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  chargeCelSort(list.length);
  if (list.length === 0) return list;
  const type = celTypeName(keys[0]);
  if (!COMPARABLE.has(type)) throw celError('list elements must be comparable');
  if (keys.some((key) => celTypeName(key) !== type)) throw celError('list elements must have the same type');
  const order = keys.map((_, i) => i).sort((a, b) => celCompare(keys[a], keys[b]));
  return order.map((i) => list[i]);
}

const COMPARABLE = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
]);

/** The first of each group of CEL-equal elements, in order; scalars by a key, other values by comparison. */
function distinct(list: unknown[]): unknown[] {
  chargeList(list.length);
  const seen = new Set<string>();
  const others: unknown[] = [];
  const out: unknown[] = [];
  for (const item of list) {
    const key = scalarKey(item);
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    } else {
      chargeList(others.length);
      if (others.some((other) => celEqual(other, item))) continue;
      others.push(item);
    }
    out.push(item);
  }
  return out;
}

/** A key equal for CEL-equal scalars (1, 1u and 1.0 share one), undefined for other values. */
function scalarKey(value: unknown): string | undefined {
  const number = numeric(value);
  if (number !== undefined) {
    if (typeof number === 'number' && !Number.isInteger(number)) return `n:${number}`;
    return `n:${typeof number === 'number' ? BigInt(number) : number}`;
  }
  if (typeof value === 'string') return `s:${value}`;
  if (typeof value === 'boolean') return `b:${value}`;
  if (value === null) return 'null';
  return isUint(value) ? `n:${value.valueOf()}` : undefined;
}

interface CheckerLike {
  check(node: unknown, ctx: unknown): TypeLike;
  getType(name: string): TypeLike;
}
interface TypeLike {
  kind: string;
  valueType?: TypeLike;
}
interface ContextLike {
  forkWithVariable(name: string, type: TypeLike): ContextLike;
  reuse(parent: unknown): { setIterValue(value: unknown, ev: unknown): unknown };
}
interface EvaluatorLike {
  run(node: unknown, ctx: unknown): unknown;
}
interface SortByMacro {
  receiver: unknown;
  variable: string;
  key: unknown;
  keyContext?: ContextLike;
}

/**
 * `list.sortBy(e, key)`: sorts by the key each element gives. cel-go expands it to
 * `@sortByAssociatedKeys(list, list.map(e, key))`; here the keys are evaluated in order, each in
 * the element's scope, and an asynchronous key (a Kyverno library call) is awaited before the next.
 */
function sortByMacro({ receiver, args }: { receiver: unknown; args: { op: string; args: unknown }[] }) {
  const [variable, key] = args;
  if (variable?.op !== 'id' || typeof variable.args !== 'string') {
    throw celError('sortBy(var, key) invalid iteration variable');
  }
  const macro: SortByMacro & Record<string, unknown> = {
    receiver,
    variable: variable.args,
    key,
    typeCheck(checker: CheckerLike, m: SortByMacro, ctx: ContextLike): TypeLike {
      const listType = checker.check(m.receiver, ctx);
      const element = listType.kind === 'list' && listType.valueType ? listType.valueType : checker.getType('dyn');
      m.keyContext = ctx.forkWithVariable(m.variable, element);
      checker.check(m.key, m.keyContext);
      return listType.kind === 'list' ? listType : checker.getType('list');
    },
    evaluate(ev: EvaluatorLike, m: SortByMacro, ctx: unknown): unknown {
      const keyOf = (item: unknown): unknown => ev.run(m.key, m.keyContext!.reuse(ctx).setIterValue(item, ev));
      const sort = (list: unknown): unknown => {
        if (!Array.isArray(list)) throw celError(`no such overload: ${celTypeName(list)}.sortBy()`);
        const keys: unknown[] = [];
        for (let i = 0; i < list.length; i++) {
          const value = keyOf(list[i]);
          if (value instanceof Promise) return sortRest(list, keys, i, value, keyOf);
          keys.push(value);
        }
        return sortByKeys(list, keys);
      };
      const list = ev.run(m.receiver, ctx);
      return list instanceof Promise ? list.then(sort) : sort(list);
    },
  };
  return macro;
}

async function sortRest(
  list: unknown[],
  keys: unknown[],
  from: number,
  pending: Promise<unknown>,
  keyOf: (item: unknown) => unknown,
): Promise<unknown[]> {
  keys.push(await pending);
  for (let i = from + 1; i < list.length; i++) keys.push(await keyOf(list[i]));
  return sortByKeys(list, keys);
}
