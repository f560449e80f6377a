import { wildcardMatch } from '../values/wildcard';
import { compareQuantities, parseQuantity } from '../values/quantity';
import { parseDurationNanos } from '../values/duration';

/**
 * Range values ("1-10", "100Mi-1Gi", and "1!-10" for outside) in the In-family operators. Kyverno
 * hands them to its validate-pattern string matcher, so this mirrors that matcher for a string
 * value: `|` / `&` alternatives, comparison prefixes, and duration → quantity → wildcard fallbacks.
 */

type Comparison = '' | '!' | '>' | '<' | '>=' | '<=' | 'range' | 'notRange';

const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

function comparisonOf(pattern: string): Comparison {
  if (pattern.length < 2) return '';
  for (const prefix of ['>=', '<=', '>', '<', '!'] as const) if (pattern.startsWith(prefix)) return prefix;
  if (NOT_IN_RANGE.test(pattern)) return 'notRange';
  if (IN_RANGE.test(pattern)) return 'range';
  return '';
}

/** Whether a condition value string is an in-range expression like "1-10". */
export function isRangePattern(pattern: string): boolean {
  return comparisonOf(pattern) === 'range';
}

/** Does `value` satisfy the pattern (e.g. "1-10", "0!-10", ">5 & <10")? */
export function matchesStringPattern(value: string, pattern: string): boolean {
  if (value === pattern) return true;
  return pattern.split('|').some((alternative) =>
    alternative
      .trim()
      .split('&')
      .every((part) => matchesOne(value, part.trim())),
  );
}

function matchesOne(value: string, pattern: string): boolean {
  const comparison = comparisonOf(pattern);
  if (comparison === 'range') {
    const [, low, high] = IN_RANGE.exec(pattern)!;
    return compare(value, low!, '>=') && compare(value, high!, '<=');
  }
  if (comparison === 'notRange') {
    const [, low, high] = NOT_IN_RANGE.exec(pattern)!;
    return compare(value, low!, '<') || compare(value, high!, '>');
  }
  return compare(value, pattern.slice(comparison.length).trim(), comparison);
}

type Simple = Exclude<Comparison, 'range' | 'notRange'>;

function compare(value: string, operand: string, comparison: Simple): boolean {
  return (
    compareDurations(value, operand, comparison) ||
    compareAsQuantities(value, operand, comparison) ||
    compareText(value, operand, comparison)
  );
}

function compareDurations(value: string, operand: string, comparison: Simple): boolean {
  const a = parseDurationNanos(value);
  const b = parseDurationNanos(operand);
  if (a === undefined || b === undefined) return false;
  return holds(a < b ? -1 : a > b ? 1 : 0, comparison);
}

function compareAsQuantities(value: string, operand: string, comparison: Simple): boolean {
  const a = parseQuantity(value);
  const b = parseQuantity(operand);
  if (!a || !b) return false;
  return holds(compareQuantities(a, b), comparison);
}

function compareText(value: string, operand: string, comparison: Simple): boolean {
  if (comparison === '') return wildcardMatch(operand, value);
  if (comparison === '!') return !wildcardMatch(operand, value);
  return false; // ordering operators do not apply to plain text
}

function holds(order: number, comparison: Simple): boolean {
  switch (comparison) {
    case '':
      return order === 0;
    case '!':
      return order !== 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
  }
}
