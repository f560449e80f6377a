import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType } from './internals';
import { isUint } from './literals';
import { celError } from './values';

const MIN_INT = -(2n ** 63n);
const MAX_INT = 2n ** 63n - 1n;
const MAX_UINT = 2n ** 64n - 1n;
/** Timestamps lie in years 0001 to 9999; durations fit in int64 nanoseconds (cel-go's bounds, about 292 years). */
const MIN_TIME = -62135596800000;
const MAX_TIME = 253402300799999;
/** RFC 3339 as CEL's timestamp() accepts it: a zone (Z or an offset) is required. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

type Evaluate = (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => unknown;

/**
 * Results kept within CEL's ranges. cel-js 8.0.0 returns `-(-9223372036854775808)`,
 * `int(1e99)`, timestamps past year 9999 and durations past 10,000 years as values; CEL makes them
 * errors. Arithmetic, negation and conversions are wrapped to check what they produce.
 */
export function fixRanges(node: AstNode): void {
  switch (node.op as string) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '-_':
      wrapResult(node);
      break;
    case 'call': {
      const [name, args] = node.args as unknown as [string, AstNode[]];
      if (args.length !== 1) break;
      if (['int', 'uint', 'duration', 'timestamp'].includes(name)) wrapResult(node);
      if (['timestamp', 'string', 'int', 'uint'].includes(name)) checkArgument(node, name);
      break;
    }
  }
}

function wrapResult(node: AstNode): void {
  const original = node.meta.evaluate as Evaluate;
  node.setMeta('evaluate', (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    const result = original(evaluator, ast, ctx);
    if (result instanceof Promise) return result.then((settled: unknown) => inRange(settled, ast));
    return inRange(result, ast);
  });
}

function inRange(value: unknown, node: AstNode): unknown {
  if (typeof value === 'bigint') {
    if (value < MIN_INT || value > MAX_INT) throw celError('integer overflow', node);
  } else if (isUint(value)) {
    if (value.valueOf() < 0n || value.valueOf() > MAX_UINT) throw celError('unsigned integer overflow', node);
  } else if (value instanceof Date) {
    const time = value.getTime();
    if (!(time >= MIN_TIME && time <= MAX_TIME)) throw celError('timestamp out of range', node);
  } else if (isDuration(value)) {
    const nanos = value.seconds * 1_000_000_000n + BigInt(value.nanos);
    if (nanos < MIN_INT || nanos > MAX_INT) throw celError('duration out of range', node);
  }
  return value;
}

function isDuration(value: unknown): value is { seconds: bigint; nanos: number } {
  return typeof value === 'object' && value !== null && typeof (value as { seconds?: unknown }).seconds === 'bigint';
}

/**
 * timestamp(string) requires a zone; string(bytes) requires valid UTF-8; int(double) and
 * uint(double) require the double to lie strictly inside the target's range (cel-go's bounds, so
 * int(-9223372036854775808.0) is an error).
 */
function checkArgument(node: AstNode, name: string): void {
  const original = node.meta.evaluate as Evaluate;
  const [, args] = node.args as unknown as [string, AstNode[]];
  node.setMeta('evaluate', (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    const value = evaluator.run(args[0] as AstNode, ctx);
    if (value instanceof Promise) return original(evaluator, ast, ctx);
    if (name === 'timestamp' && typeof value === 'string' && !RFC3339.test(value))
      throw celError(`timestamp() requires an RFC 3339 timestamp with a zone, got '${value}'`, ast);
    if (name === 'int' && typeof value === 'number' && !(value > -(2 ** 63) && value < 2 ** 63))
      throw celError('integer overflow', ast);
    if (name === 'uint' && typeof value === 'number' && !(value > -1 && value < 2 ** 64))
      throw celError('unsigned integer overflow', ast);
    if (name === 'string' && value instanceof Uint8Array) {
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(value);
      } catch {
        throw celError('string() of bytes that are not valid UTF-8', ast);
      }
    }
    return (ast as unknown as { handle: (args: unknown[], ast: AstNode, evaluator: CelEvaluator) => unknown }).handle(
      [value],
      ast,
      evaluator,
    );
  });
}

const TS = 'google.protobuf.Timestamp';
const GPD = 'google.protobuf.Duration';

/** Conversions cel-js lacks (declared synchronous: cel-js takes a function without `async: false` as maybe asynchronous). */
export function registerConversions(env: Environment): void {
  const sync = { async: false };
  env.registerFunction(
    'int(uint): int',
    (value: { valueOf(): bigint }) => {
      const int = value.valueOf();
      if (int > MAX_INT) throw celError('integer overflow');
      return int;
    },
    sync,
  );
  env.registerFunction(`int(${TS}): int`, (value: Date) => BigInt(Math.floor(value.getTime() / 1000)), sync);
  env.registerFunction(`string(${TS}): string`, (value: Date) => formatTimestamp(value), sync);
  env.registerFunction(`string(${GPD}): string`, (value: { toString(): string }) => value.toString(), sync);
  env.registerFunction(`timestamp(${TS}): ${TS}`, (value: Date) => value, sync);
  env.registerFunction(`duration(${GPD}): ${GPD}`, (value: unknown) => value, sync);
}

/** RFC 3339 as cel-go prints a timestamp: fractional seconds only when present, trailing zeros cut. */
function formatTimestamp(value: Date): string {
  return value.toISOString().replace(/\.(\d*?)0*Z$/, (_match, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** cel-js types `duration + timestamp` as a duration; it is a timestamp. */
export function fixDurationPlusTimestamp(node: AstNode): void {
  if (node.op !== '+') return;
  const check = node.meta.check as (checker: CelChecker, ast: AstNode, ctx: CelContext) => CelType;
  node.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext) => {
    const type = check(checker, ast, ctx);
    const [left, right] = ast.args as unknown as [
      AstNode & { checkedType?: CelType },
      AstNode & { checkedType?: CelType },
    ];
    if (left.checkedType?.name === GPD && right.checkedType?.name === TS) return right.checkedType;
    return type;
  });
}

const GETTERS = new Set([
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);
const OFFSET = /^([+-])?(\d{2}):(\d{2})$/;

/**
 * Timestamp getters with a fixed offset (`'+11:00'`, `'-02:30'`, `'02:00'`) as the zone, which CEL
 * allows and cel-js rejects ("Invalid time zone"); named zones still go to cel-js.
 */
export function fixOffsetZones(node: AstNode): void {
  if (node.op !== 'rcall') return;
  const [name, receiver, args] = node.args as unknown as [string, AstNode, AstNode[]];
  if (!GETTERS.has(name) || args.length !== 1) return;
  const original = node.meta.evaluate as Evaluate;
  node.setMeta('evaluate', (evaluator: CelEvaluator, ast: AstNode, ctx: CelContext) => {
    const zone = evaluator.run(args[0] as AstNode, ctx);
    const offset = typeof zone === 'string' ? OFFSET.exec(zone) : null;
    if (!offset) return original(evaluator, ast, ctx);
    const time = evaluator.run(receiver, ctx);
    if (!(time instanceof Date)) return original(evaluator, ast, ctx);
    const minutes = (Number(offset[2]) * 60 + Number(offset[3])) * (offset[1] === '-' ? -1 : 1);
    return BigInt(utcField(name, new Date(time.getTime() + minutes * 60_000)));
  });
}

function utcField(name: string, d: Date): number {
  switch (name) {
    case 'getFullYear':
      return d.getUTCFullYear();
    case 'getMonth':
      return d.getUTCMonth();
    case 'getDayOfYear':
      return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000);
    case 'getDayOfMonth':
      return d.getUTCDate() - 1;
    case 'getDate':
      return d.getUTCDate();
    case 'getDayOfWeek':
      return d.getUTCDay();
    case 'getHours':
      return d.getUTCHours();
    case 'getMinutes':
      return d.getUTCMinutes();
    case 'getSeconds':
      return d.getUTCSeconds();
    default:
      return d.getUTCMilliseconds();
  }
}
