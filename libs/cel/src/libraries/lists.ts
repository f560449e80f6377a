import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { replaced } from './replaced';
import {
  celCompare,
  celEqual,
  celTypeName,
  chargeList,
  isDuration,
  isUint,
  MAX_INT64,
  MAX_UINT64,
  MIN_INT64,
  uint,
  type CelDuration,
} from './runtime';

/**
 * Kubernetes' CEL list library: isSorted, sum, min, max, indexOf, lastIndexOf. Elements compare
 * as CEL orders them (numbers across int, uint and double; strings, bools, bytes, durations,
 * timestamps), and indexOf finds by CEL equality.
 */
export function registerLists(env: Environment): void {
  env.registerFunction('list.isSorted(): bool', (list: unknown[]) => {
    chargeList(list.length);
    return list.every((item, i) => i === 0 || celCompare(list[i - 1], item) <= 0);
  });
  env.registerFunction('list.sum(): dyn', (list: unknown[]) => {
    chargeList(list.length);
    if (list.length === 0) return 0n;
    return list.reduce((total, item) => add(total, item));
  });
  env.registerFunction('list.min(): dyn', (list: unknown[]) => extreme(list, 'min', -1));
  env.registerFunction('list.max(): dyn', (list: unknown[]) => extreme(list, 'max', 1));
  env.registerFunction(`list.${replaced('indexOf')}(dyn): int`, (list: unknown[], wanted: unknown) => {
    chargeList(list.length);
    return BigInt(list.findIndex((item) => celEqual(item, wanted)));
  });
  env.registerFunction(`list.${replaced('lastIndexOf')}(dyn): int`, (list: unknown[], wanted: unknown) => {
    chargeList(list.length);
    return BigInt(list.findLastIndex((item) => celEqual(item, wanted)));
  });
}

function extreme(list: unknown[], name: string, wanted: 1 | -1): unknown {
  chargeList(list.length);
  if (list.length === 0) throw celError(`${name} called on an empty list`);
  return list.reduce((best, item) => (celCompare(item, best) === wanted ? item : best));
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const total = a + b;
    if (total > MAX_INT64 || total < MIN_INT64) throw celError('integer overflow');
    return total;
  }
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (isUint(a) && isUint(b)) {
    const total = a.valueOf() + b.valueOf();
    if (total > MAX_UINT64) throw celError('unsigned integer overflow');
    return uint(total);
  }
  if (isDuration(a) && isDuration(b)) return (a as CelDuration & { addDuration(o: unknown): unknown }).addDuration(b);
  throw celError(`no such overload: sum of ${celTypeName(a)} and ${celTypeName(b)}`);
}
