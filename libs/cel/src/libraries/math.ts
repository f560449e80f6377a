import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { chargeList, compareNumbers, MAX_UINT64, MIN_INT64, numeric, uint, type CelUint } from './runtime';
import { namespaceFunction } from './namespace';

/** Arguments `math.greatest` and `math.least` take one by one (cel-js allows 32 per call). */
const MAX_ARGUMENTS = 32;

/**
 * cel-go's math extension (the version Kyverno enables, with sqrt): greatest and least over
 * arguments or a list of mixed numeric types, ceil, floor, round, trunc, abs, sign, isInf, isNaN,
 * isFinite, sqrt and the bitwise functions on int and uint.
 */
export function registerMath(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    namespaceFunction(env, `math.${signature}`, handler);
  };
  for (const [name, wanted] of [
    ['greatest', 1],
    ['least', -1],
  ] as const) {
    for (const type of ['int', 'uint', 'double']) fn(`${name}(${type}): ${type}`, (value: unknown) => value);
    // One list overload: a typed one would also claim list<dyn> at type-check time.
    fn(`${name}(list<dyn>): dyn`, (list: unknown[]) => extreme(name, list, wanted));
    for (let arity = 2; arity <= MAX_ARGUMENTS; arity++) {
      fn(`${name}(${Array(arity).fill('dyn').join(', ')}): dyn`, (...args: unknown[]) => extreme(name, args, wanted));
    }
  }
  fn('ceil(double): double', (x: number) => Math.ceil(x));
  fn('floor(double): double', (x: number) => Math.floor(x));
  // Go's math.Round: halves away from zero.
  fn('round(double): double', (x: number) => Math.sign(x) * Math.round(Math.abs(x)));
  fn('trunc(double): double', (x: number) => Math.trunc(x));
  fn('abs(int): int', (x: bigint) => {
    if (x === MIN_INT64) throw celError('overflow');
    return x < 0n ? -x : x;
  });
  fn('abs(uint): uint', (x: CelUint) => x);
  fn('abs(double): double', (x: number) => Math.abs(x));
  fn('sign(int): int', (x: bigint) => (x > 0n ? 1n : x < 0n ? -1n : 0n));
  fn('sign(uint): uint', (x: CelUint) => uint(x.valueOf() > 0n ? 1n : 0n));
  fn('sign(double): double', (x: number) => (Number.isNaN(x) ? x : Math.sign(x) + 0));
  fn('isInf(double): bool', (x: number) => x === Infinity || x === -Infinity);
  fn('isNaN(double): bool', (x: number) => Number.isNaN(x));
  fn('isFinite(double): bool', (x: number) => Number.isFinite(x));
  for (const type of ['int', 'uint', 'double']) {
    fn(`sqrt(${type}): double`, (x: unknown) => Math.sqrt(Number(numeric(x))));
  }
  const bitwise = (name: string, op: (a: bigint, b: bigint) => bigint): void => {
    fn(`${name}(int, int): int`, (a: bigint, b: bigint) => BigInt.asIntN(64, op(a, b)));
    fn(`${name}(uint, uint): uint`, (a: CelUint, b: CelUint) => uint(BigInt.asUintN(64, op(a.valueOf(), b.valueOf()))));
  };
  bitwise('bitAnd', (a, b) => a & b);
  bitwise('bitOr', (a, b) => a | b);
  bitwise('bitXor', (a, b) => a ^ b);
  fn('bitNot(int): int', (x: bigint) => ~x);
  fn('bitNot(uint): uint', (x: CelUint) => uint(MAX_UINT64 ^ x.valueOf()));
  fn('bitShiftLeft(int, int): int', (x: bigint, n: bigint) =>
    shift('bitShiftLeft', n, () => BigInt.asIntN(64, x << n)),
  );
  fn('bitShiftLeft(uint, int): uint', (x: CelUint, n: bigint) =>
    uint(shift('bitShiftLeft', n, () => BigInt.asUintN(64, x.valueOf() << n))),
  );
  // Shifting an int right is logical (on its unsigned bits), as cel-go does.
  fn('bitShiftRight(int, int): int', (x: bigint, n: bigint) =>
    shift('bitShiftRight', n, () => BigInt.asIntN(64, BigInt.asUintN(64, x) >> n)),
  );
  fn('bitShiftRight(uint, int): uint', (x: CelUint, n: bigint) =>
    uint(shift('bitShiftRight', n, () => x.valueOf() >> n)),
  );
}

function shift(name: string, by: bigint, compute: () => bigint): bigint {
  if (by < 0n) throw celError(`math.${name}() negative offset: ${by}`);
  return by > 63n ? 0n : compute();
}

/** The greatest (wanted 1) or least (-1) of numbers of any numeric types, kept in its own type. */
function extreme(name: string, values: readonly unknown[], wanted: 1 | -1): unknown {
  chargeList(values.length);
  if (values.length === 0) throw celError(`math.${name}() requires at least one argument`);
  let best: unknown;
  let bestValue: bigint | number | undefined;
  for (const value of values) {
    const number = numeric(value);
    if (number === undefined) throw celError(`no such overload: math.${name}() takes numbers`);
    if (bestValue === undefined || compareNumbers(number, bestValue) === wanted) {
      best = value;
      bestValue = number;
    }
  }
  return best;
}
