import type { JsonValue } from '@edict/foundation';
import type { AnyAllConditions, Condition, Conditions } from '../policy/types';
import { operatorHandler } from './operators';

/** A condition that cannot be evaluated at all (Kyverno turns this into a rule error). */
export class ConditionError extends Error {
  constructor(
    message: string,
    readonly condition?: Condition,
  ) {
    super(message);
    this.name = 'ConditionError';
  }
}

export interface ConditionsResult {
  readonly passed: boolean;
  /**
   * When not passed: the conditions whose messages Kyverno reports — the failed `any` entries
   * it tried plus the first failing `all` entry (or the first failing entry of a legacy list).
   */
  readonly failed?: Condition[];
  /**
   * Kyverno's combined message: the non-empty `message`s of the failed conditions (or, when
   * passed, of the conditions that held), joined with "; " for any/all blocks and ";" for the
   * legacy list form.
   */
  readonly message: string;
}

/** The result of absent conditions (most rules have no preconditions): shared, as nothing holds it. */
export const NO_CONDITIONS: ConditionsResult = Object.freeze({ passed: true, message: '' });

/** Evaluates one condition whose key and value have already had variables substituted. */
export function evaluateCondition(condition: Condition): boolean {
  const handler = operatorHandler(condition.operator);
  if (!handler) {
    throw new ConditionError(
      `failed to create handler for condition operator: unknown operator ${JSON.stringify(condition.operator)}`,
      condition,
    );
  }
  return handler(orNull(condition.key), orNull(condition.value));
}

function orNull(value: JsonValue | undefined): JsonValue {
  return value === undefined ? null : value;
}

/**
 * `{any, all}` or the legacy bare list (all must hold). An `any` block that is present must have
 * a passing entry — so `any: []` fails, as in Kyverno — while absent blocks and empty lists of
 * the legacy form pass. Evaluation short-circuits like Kyverno's, so a broken condition after
 * the deciding one is never reached.
 */
export function evaluateConditions(
  conditions: Conditions | null | undefined,
  prepare: PrepareCondition = (condition) => condition,
): ConditionsResult {
  if (conditions === null || conditions === undefined) return NO_CONDITIONS;
  const holds = (condition: Condition) => evaluateCondition(prepare(condition));
  if (Array.isArray(conditions)) return evaluateLegacyList(conditions, holds);
  if (typeof conditions !== 'object') throw new ConditionError('invalid condition');
  return evaluateAnyAll(conditions, holds);
}

/**
 * Turns a condition as written into the one evaluated (variable substitution). It runs only for
 * conditions that are reached, so a broken variable after the deciding condition never fails.
 */
export type PrepareCondition = (condition: Condition) => Condition;

function evaluateLegacyList(conditions: Condition[], holds: (condition: Condition) => boolean): ConditionsResult {
  for (const condition of conditions) {
    if (!holds(condition)) return { passed: false, failed: [condition], message: condition.message ?? '' };
  }
  return { passed: true, message: joinMessages(conditions, ';') };
}

function evaluateAnyAll({ any, all }: AnyAllConditions, holds: (condition: Condition) => boolean): ConditionsResult {
  const failed: Condition[] = [];
  const held: Condition[] = [];
  let anyPassed = true;
  if (any !== undefined && any !== null) {
    anyPassed = false;
    for (const condition of any) {
      if (holds(condition)) {
        anyPassed = true;
        held.push(condition);
        break;
      }
      failed.push(condition);
    }
  }
  let allPassed = true;
  for (const condition of all ?? []) {
    if (!holds(condition)) {
      allPassed = false;
      failed.push(condition);
      break;
    }
    held.push(condition);
  }
  if (anyPassed && allPassed) return { passed: true, message: joinMessages(held, '; ') };
  return { passed: false, failed, message: joinMessages(failed, '; ') };
}

/** The conditions' non-empty messages joined (built directly: this runs for every rule). */
function joinMessages(conditions: readonly Condition[], separator: string): string {
  let text = '';
  for (const condition of conditions) {
    const message = condition.message ?? '';
    if (message !== '') text = text === '' ? message : text + separator + message;
  }
  return text;
}
