import type { Environment } from '@marcbachmann/cel-js';
import { chargeCel } from '../meter';
import { celEqual } from './runtime';

/**
 * cel-go's sets extension: `sets.contains(a, b)` (every element of b is in a), `sets.equivalent`
 * (each contains the other) and `sets.intersects` (an element in both), by CEL equality (1 == 1.0).
 */
export function registerSets(env: Environment): void {
  env.registerFunction('sets.contains(list, list): bool', (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b));
  env.registerFunction(
    'sets.equivalent(list, list): bool',
    (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a),
  );
  env.registerFunction('sets.intersects(list, list): bool', (_ns: unknown, a: unknown[], b: unknown[]) => {
    chargeCel(1 + a.length * b.length);
    return b.some((item) => a.some((other) => celEqual(other, item)));
  });
}

function contains(a: unknown[], b: unknown[]): boolean {
  chargeCel(1 + a.length * b.length);
  return b.every((item) => a.some((other) => celEqual(other, item)));
}
