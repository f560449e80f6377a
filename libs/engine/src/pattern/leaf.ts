/**
 * One leaf of a validate pattern (string, number, bool or null) against one resource value, as
 * Kyverno's `pattern.Validate` decides it.
 *
 * String leaves are a small language: `a | b` (or), `a & b` (and), a leading operator
 * (`!`, `>`, `>=`, `<`, `<=`), ranges `1-5` / `1!-5`, and `*` / `?` wildcards. Each operand is
 * compared first as a Go duration, then as a Kubernetes quantity, then as a wildcard string; the
 * first comparison for which both sides parse decides. Leaves are compiled once and cached.
 */
import {
  type JsonValue,
  isObject,
  parseDurationNanos,
  goParseFloat,
  compareQuantities,
  parseQuantity,
  type Quantity,
  wildcardMatch,
  BoundedCache,
} from '@edict/foundation';
import { comparableText, goTrimSpace, numberText, trimSpaces } from './go-text';

export type Operator = '' | '!' | '>' | '>=' | '<' | '<=';

/** One operator applied to one operand, with the operand pre-parsed in every form Kyverno tries. */
export interface Comparison {
  readonly operator: Operator;
  readonly operand: string;
  readonly duration: bigint | undefined;
  readonly quantity: Quantity | undefined;
}

export type Condition =
  | { readonly kind: 'compare'; readonly comparison: Comparison }
  /** `low-high` holds when both hold; `low!-high` (negated) when either holds. */
  | { readonly kind: 'range'; readonly negated: boolean; readonly low: Comparison; readonly high: Comparison };

export interface StringPattern {
  readonly source: string;
  /** Alternatives (`|`), each a conjunction (`&`) of conditions. */
  readonly alternatives: readonly (readonly Condition[])[];
}

// Endpoints are numbers with an optional unit suffix ("1", "-2.5", "100Mi", "10s").
const ENDPOINT = String.raw`[-|\+]?\d+(?:\.\d+)?[A-Za-z]*`;
const IN_RANGE = new RegExp(`^(${ENDPOINT})-(${ENDPOINT})$`);
const NOT_IN_RANGE = new RegExp(`^(${ENDPOINT})!-(${ENDPOINT})$`);

const MAX_CACHED = 10_000;
const cache = new BoundedCache<StringPattern>(MAX_CACHED);

/** Compiles (or fetches from the bounded cache) a string leaf pattern. */
export function compileStringPattern(source: string): StringPattern {
  return cache.getOrCreate(source, () => ({
    source,
    alternatives: source.split('|').map((alternative) =>
      trimSpaces(alternative)
        .split('&')
        .map((condition) => compileCondition(trimSpaces(condition))),
    ),
  }));
}

function comparison(operator: Operator, operand: string): Comparison {
  return { operator, operand, duration: parseDurationNanos(operand), quantity: parseQuantity(operand) };
}

/** Kyverno checks the two-character operators first, then the ranges (only without an operator). */
function leadingOperator(text: string): Operator | undefined {
  if (text.length < 2) return '';
  if (text.startsWith('>=')) return '>=';
  if (text.startsWith('<=')) return '<=';
  if (text.startsWith('>')) return '>';
  if (text.startsWith('<')) return '<';
  if (text.startsWith('!')) return '!';
  return undefined;
}

/**
 * Whether a whole string is an in-range expression like "1-10" (Kyverno's `InRange` operator);
 * the In-family condition operators hand such values to this matcher.
 */
export function isRangePattern(text: string): boolean {
  return leadingOperator(text) === undefined && !NOT_IN_RANGE.test(text) && IN_RANGE.test(text);
}

function compileCondition(text: string): Condition {
  const operator = leadingOperator(text);
  if (operator === undefined) {
    const outside = NOT_IN_RANGE.exec(text);
    if (outside) {
      return { kind: 'range', negated: true, low: comparison('<', outside[1]!), high: comparison('>', outside[2]!) };
    }
    const inside = IN_RANGE.exec(text);
    if (inside) {
      return { kind: 'range', negated: false, low: comparison('>=', inside[1]!), high: comparison('<=', inside[2]!) };
    }
    return { kind: 'compare', comparison: comparison('', goTrimSpace(text)) };
  }
  return { kind: 'compare', comparison: comparison(operator, goTrimSpace(text.slice(operator.length))) };
}

function holds(order: number, operator: Operator): boolean {
  switch (operator) {
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

function order(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Resource values repeat across requests ("500m", "512Mi", "30s"): remember how they parse.
// `null` records "does not parse".
const valueDurations = new BoundedCache<bigint | null>(MAX_CACHED);
const valueQuantities = new BoundedCache<Quantity | null>(MAX_CACHED);

function remember<T>(cache: BoundedCache<T | null>, text: string, parse: (s: string) => T | undefined): T | undefined {
  return cache.getOrCreate(text, () => parse(text) ?? null) ?? undefined;
}

function compare(value: JsonValue | undefined, c: Comparison): boolean {
  if (c.duration !== undefined || c.quantity !== undefined) {
    const text = numberText(value);
    if (text !== undefined) {
      if (c.duration !== undefined) {
        const duration = remember(valueDurations, text, parseDurationNanos);
        if (duration !== undefined) return holds(order(duration, c.duration), c.operator);
      }
      if (c.quantity !== undefined) {
        const quantity = remember(valueQuantities, text, parseQuantity);
        if (quantity !== undefined) return holds(compareQuantities(quantity, c.quantity), c.operator);
      }
    }
  }
  // Plain strings only support equality (with wildcards) and its negation.
  if (c.operator !== '' && c.operator !== '!') return false;
  const text = comparableText(value);
  if (text === undefined) return false;
  return wildcardMatch(c.operand, text) === (c.operator === '');
}

function satisfies(value: JsonValue | undefined, condition: Condition): boolean {
  if (condition.kind === 'compare') return compare(value, condition.comparison);
  return condition.negated
    ? compare(value, condition.low) || compare(value, condition.high)
    : compare(value, condition.low) && compare(value, condition.high);
}

/** A compiled string pattern against one value. */
export function matchStringPattern(value: JsonValue | undefined, pattern: StringPattern): boolean {
  if (value === pattern.source) return true;
  for (const conjunction of pattern.alternatives) {
    if (conjunction.every((condition) => satisfies(value, condition))) return true;
  }
  return false;
}

/**
 * Kyverno's `pattern.Validate`: does one resource value satisfy one pattern leaf?
 * Pattern numbers behave as float64 (that is how Kyverno decodes policies); `null` accepts every
 * zero value; a map pattern only checks that the value is a map; an array pattern never matches.
 */
export function matchValue(value: JsonValue | undefined, patternLeaf: JsonValue): boolean {
  switch (typeof patternLeaf) {
    case 'string':
      return matchStringPattern(value, compileStringPattern(patternLeaf));
    case 'boolean':
      return value === patternLeaf;
    case 'number':
      if (typeof value === 'number') return value === patternLeaf;
      if (typeof value === 'string') return goParseFloat(value) === patternLeaf;
      return false;
  }
  if (patternLeaf === null) {
    return value === null || value === undefined || value === 0 || value === '' || value === false;
  }
  if (isObject(patternLeaf)) return isObject(value);
  return false;
}
