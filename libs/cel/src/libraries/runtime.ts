import { Environment, Optional } from '@marcbachmann/cel-js';
import { activeCelLimits, celLimitExceeded, chargeCel } from '../meter';
import { celError } from './errors';

/**
 * What library functions need of cel-js's runtime values: cel-js exports neither its uint nor its
 * duration nor its type class, so each is taken from a value a throwaway environment produces.
 */
const probe = new Environment();

export interface CelUint {
  valueOf(): bigint;
}
const CelUintClass = (probe.evaluate('1u') as object).constructor as new (value: bigint) => CelUint;
const CelDurationClass = (probe.evaluate('duration("1s")') as object).constructor as new (
  seconds: bigint,
  nanos: number,
) => CelDuration;
export const CelTypeClass = (probe.evaluate('type(1)') as object).constructor as new (name: string) => CelType;

export interface CelDuration {
  readonly seconds: bigint;
  readonly nanos: number;
}
export interface CelType {
  readonly name: string;
}

export const MAX_INT64 = (1n << 63n) - 1n;
export const MIN_INT64 = -(1n << 63n);
export const MAX_UINT64 = (1n << 64n) - 1n;

export function uint(value: bigint): CelUint {
  return new CelUintClass(value);
}

export function isUint(value: unknown): value is CelUint {
  return value instanceof CelUintClass;
}

export function isDuration(value: unknown): value is CelDuration {
  return value instanceof CelDurationClass;
}

export function isCelMap(value: unknown): value is Record<string, unknown> | Map<unknown, unknown> {
  if (value instanceof Map) return true;
  if (!value || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === null || proto === Object.prototype;
}

export function mapEntries(value: Record<string, unknown> | Map<unknown, unknown>): [unknown, unknown][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

/** CEL's name of a value's type, as cel-go writes it in errors. */
export function celTypeName(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'undefined':
      return 'null_type';
  }
  if (value === null) return 'null_type';
  if (isUint(value)) return 'uint';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  if (isDuration(value)) return 'google.protobuf.Duration';
  if (value instanceof CelTypeClass) return 'type';
  if (value instanceof Optional) return 'optional_type';
  if (Array.isArray(value)) return 'list';
  if (isCelMap(value)) return 'map';
  const named = (value as { celTypeName?: unknown }).celTypeName;
  return typeof named === 'string' ? named : ((value as object).constructor?.name ?? 'object');
}

/** A number of any CEL numeric type as a comparable JavaScript value (bigint or number), else undefined. */
export function numeric(value: unknown): bigint | number | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (isUint(value)) return value.valueOf();
  return undefined;
}

/** Orders two numbers of any CEL numeric types exactly (int64 and uint64 beyond 2^53 included). */
export function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'number' && Number.isNaN(a)) return Number.isNaN(b as number) ? 0 : 1;
  if (typeof b === 'number' && Number.isNaN(b)) return -1;
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  // One bigint and one number: compare the integer parts exactly, then the fraction.
  const [big, num, flip] = typeof a === 'bigint' ? [a, b as number, 1] : [b as bigint, a as number, -1];
  if (num === Infinity) return -flip;
  if (num === -Infinity) return flip;
  const whole = BigInt(Math.trunc(num));
  if (big !== whole) return big < whole ? -flip : flip;
  const fraction = num - Math.trunc(num);
  return fraction > 0 ? -flip : fraction < 0 ? flip : 0;
}

/** CEL equality: numbers across int, uint and double; lists and maps element by element. */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) {
    return x !== undefined && y !== undefined && compareNumbers(x, y) === 0 && !Number.isNaN(x as number);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((v, i) => v === b[i]);
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (isDuration(a) || isDuration(b)) {
    return isDuration(a) && isDuration(b) && a.seconds === b.seconds && a.nanos === b.nanos;
  }
  if (a instanceof CelTypeClass || b instanceof CelTypeClass) {
    return a instanceof CelTypeClass && b instanceof CelTypeClass && a.name === b.name;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEqual(v, b[i]));
  }
  if (isCelMap(a) && isCelMap(b)) {
    const left = mapEntries(a);
    const right = new Map(mapEntries(b).map(([k, v]) => [String(k), v]));
    return (
      left.length === right.size && left.every(([k, v]) => right.has(String(k)) && celEqual(v, right.get(String(k))))
    );
  }
  const equals = (a as { equals?: (other: unknown) => boolean }).equals;
  return typeof equals === 'function' ? equals.call(a, b) : false;
}

/**
 * Orders two values of one comparable CEL type (int, uint, double, bool, string, bytes, duration,
 * timestamp); numbers of different types compare by value. Anything else is an error.
 */
export function celCompare(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y);
  if (typeof a === typeof b && (typeof a === 'string' || typeof a === 'boolean')) {
    return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  }
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (isDuration(a) && isDuration(b)) {
    return a.seconds !== b.seconds ? (a.seconds < b.seconds ? -1 : 1) : Math.sign(a.nanos - b.nanos);
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return Math.sign(a.length - b.length);
  }
  throw celError(`no such overload: cannot compare ${celTypeName(a)} and ${celTypeName(b)}`);
}

/** Charges the traversal of a string (Kubernetes counts a tenth of a step per character). */
export function chargeString(...lengths: number[]): void {
  chargeCel(1 + lengths.reduce((total, length) => total + length, 0) * 0.1);
}

/** Charges the traversal of list elements (a step per element). */
export function chargeList(...lengths: number[]): void {
  chargeCel(1 + lengths.reduce((total, length) => total + length, 0));
}

/** Charges a sort of `length` elements (n log n comparisons). */
export function chargeCelSort(length: number): void {
  chargeCel(1 + length * Math.max(1, Math.log2(length || 1)));
}

/** Refuses a string result longer than the limits before it is built. */
export function checkStringLength(length: number): void {
  const max = activeCelLimits().maxStringLength;
  if (length > max) throw celLimitExceeded(`a CEL string exceeds the limit of ${max} characters`);
}

/** Refuses a list result longer than the limits before it is built. */
export function checkListLength(length: number | bigint): void {
  const max = activeCelLimits().maxListLength;
  if (length > max) throw celLimitExceeded(`a CEL list exceeds the limit of ${max} elements`);
}

/** The code points of a string (CEL indexes strings by code point, not by UTF-16 unit). */
export function codePoints(text: string): string[] {
  return Array.from(text);
}
