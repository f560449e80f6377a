/**
 * A readable diff of an expected object against an actual one: the actual object is first cut
 * down to the fields the expectation names (partial match), both are printed as YAML, and the
 * lines are compared (`-` expected, `+` actual).
 */
import { isObject, type JsonValue } from '@edict/foundation';
import { stringify } from 'yaml';
import { parseExpression } from '../expressions/expression';

const MAX_LINES = 400;

export function diffExpectedActual(expected: JsonValue, actual: JsonValue): string {
  const left = toLines(expected);
  const right = toLines(prune(expected, actual));
  return lineDiff(left, right);
}

/** The part of `actual` that `expected` talks about; expression keys keep nothing to compare. */
export function prune(expected: JsonValue, actual: JsonValue): JsonValue {
  if (isObject(expected) && isObject(actual)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(expected)) {
      if (parseExpression(key).engine !== undefined) continue;
      if (Object.prototype.hasOwnProperty.call(actual, key)) out[key] = prune(value, actual[key]!);
    }
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return actual.map((item, i) => (i < expected.length ? prune(expected[i]!, item) : item));
  }
  return actual;
}

function toLines(value: JsonValue): string[] {
  const lines = stringify(value, { lineWidth: 0 }).trimEnd().split('\n');
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), '... (truncated)'] : lines;
}

/** Longest-common-subsequence line diff; unchanged lines are kept for context. */
export function lineDiff(left: readonly string[], right: readonly string[]): string {
  const n = left.length;
  const m = right.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = left[i] === right[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const out: string[] = ['--- expected', '+++ actual'];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (left[i] === right[j]) {
      out.push(`  ${left[i]}`);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      out.push(`- ${left[i++]}`);
    } else {
      out.push(`+ ${right[j++]}`);
    }
  }
  while (i < n) out.push(`- ${left[i++]}`);
  while (j < m) out.push(`+ ${right[j++]}`);
  return out.join('\n');
}
