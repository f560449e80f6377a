import type { JsonValue } from '@edict/foundation';
import { evaluateCondition } from '../conditions/evaluate';

/** Shorthand for specs: evaluate `key OP value`. */
export function check(key: JsonValue | undefined, operator: string, value: JsonValue | undefined): boolean {
  return evaluateCondition({ key, operator, value });
}
