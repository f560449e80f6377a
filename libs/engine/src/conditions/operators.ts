import type { JsonValue } from '@edict/foundation';
import { evaluateDurationOrdering } from './duration-operators';
import { evaluateEquals, evaluateNotEquals } from './equality';
import { evaluateIn, evaluateQuantifiedIn } from './membership';
import { evaluateNumeric, type Ordering } from './numeric';

/**
 * Kyverno's condition operators, spelled and ordered as in the CRD enum (the policy schema lists
 * them in this order when it rejects an unknown operator).
 */
export const CONDITION_OPERATORS: readonly string[] = Object.freeze([
  'Equal',
  'Equals',
  'NotEqual',
  'NotEquals',
  'In',
  'AnyIn',
  'AllIn',
  'NotIn',
  'AnyNotIn',
  'AllNotIn',
  'GreaterThanOrEquals',
  'GreaterThan',
  'LessThanOrEquals',
  'LessThan',
  'DurationGreaterThanOrEquals',
  'DurationGreaterThan',
  'DurationLessThanOrEquals',
  'DurationLessThan',
]);

/** Deprecated operators kyverno.io/v1 still accepts and kyverno.io/v2beta1 policies may not use. */
export const V1_ONLY_CONDITION_OPERATORS: readonly string[] = Object.freeze(['Equal', 'NotEqual', 'In', 'NotIn']);

/** Operators Kyverno's policy validation warns about, with the replacements it suggests. */
export const DEPRECATED_CONDITION_OPERATORS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  In: ['AllIn', 'AnyIn'],
  NotIn: ['AllNotIn', 'AnyNotIn'],
});

export type OperatorHandler = (key: JsonValue, value: JsonValue) => boolean;

const ORDERINGS: Record<string, Ordering> = {
  GreaterThan: (a, b) => a > b,
  GreaterThanOrEquals: (a, b) => a >= b,
  LessThan: (a, b) => a < b,
  LessThanOrEquals: (a, b) => a <= b,
};

const DURATION_ORDERINGS: Record<string, (a: bigint, b: bigint) => boolean> = {
  DurationGreaterThan: (a, b) => a > b,
  DurationGreaterThanOrEquals: (a, b) => a >= b,
  DurationLessThan: (a, b) => a < b,
  DurationLessThanOrEquals: (a, b) => a <= b,
};

const never: OperatorHandler = () => false;

/**
 * Handlers by lower-cased name: Kyverno picks the handler case-insensitively ("anyin" works),
 * but its ordering operators then compare the operator name exactly, so a mis-cased
 * "greaterThan" silently evaluates to false. Both quirks are kept.
 */
function buildHandlers(): Map<string, (operator: string) => OperatorHandler> {
  const table: [string, (operator: string) => OperatorHandler][] = [
    ['equals', () => evaluateEquals],
    ['equal', () => evaluateEquals],
    ['notequals', () => evaluateNotEquals],
    ['notequal', () => evaluateNotEquals],
    ['in', () => (k, v) => evaluateIn(k, v, false)],
    ['notin', () => (k, v) => evaluateIn(k, v, true)],
    ['anyin', () => (k, v) => evaluateQuantifiedIn(k, v, 'any', false)],
    ['allin', () => (k, v) => evaluateQuantifiedIn(k, v, 'all', false)],
    ['anynotin', () => (k, v) => evaluateQuantifiedIn(k, v, 'any', true)],
    ['allnotin', () => (k, v) => evaluateQuantifiedIn(k, v, 'all', true)],
  ];
  for (const name of Object.keys(ORDERINGS)) {
    table.push([name.toLowerCase(), (op) => (ORDERINGS[op] ? (k, v) => evaluateNumeric(k, v, ORDERINGS[op]!) : never)]);
  }
  for (const name of Object.keys(DURATION_ORDERINGS)) {
    table.push([
      name.toLowerCase(),
      (op) => (DURATION_ORDERINGS[op] ? (k, v) => evaluateDurationOrdering(k, v, DURATION_ORDERINGS[op]!) : never),
    ]);
  }
  return new Map(table);
}

const HANDLER_FACTORIES = buildHandlers();
const resolved = new Map<string, OperatorHandler | null>();

/** The handler for an operator name, or `undefined` if Kyverno has no such operator. */
export function operatorHandler(operator: string): OperatorHandler | undefined {
  let handler = resolved.get(operator);
  if (handler === undefined) {
    const factory = typeof operator === 'string' ? HANDLER_FACTORIES.get(operator.toLowerCase()) : undefined;
    handler = factory ? factory(operator) : null;
    if (resolved.size < 1_000) resolved.set(operator, handler);
  }
  return handler ?? undefined;
}

export function isConditionOperator(operator: string): boolean {
  return operatorHandler(operator) !== undefined;
}
