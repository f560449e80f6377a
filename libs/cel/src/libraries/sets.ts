import type { Environment } from '@marcbachmann/cel-js';
import { chargeCel } from '../meter';
import { celEqual } from './runtime';
import { namespaceFunction } from './namespace';

/**
 * cel-go's sets extension: `sets.contains(a, b)` (every element of b is in a), `sets.equivalent`
 * (each contains the other) and `sets.intersects` (an element in both), by CEL equality (1 == 1.0).
 */
export function registerSets(env: Environment): void {
  namespaceFunction(env, 'sets.contains(list, list): bool', (a: unknown[], b: unknown[]) => contains(a, b));
  namespaceFunction(
    env,
    'sets.equivalent(list, list): bool',
    (a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a),
  );
  namespaceFunction(env, 'sets.intersects(list, list): bool', (a: unknown[], b: unknown[]) => {
    chargeCel(1 + a.length * b.length);
    return b.some((item) => a.some((other) => celEqual(other, item)));
  });
}

function contains(a: unknown[], b: unknown[]): boolean {
  chargeCel(1 + a.length * b.length);
  return b.every((item) => a.some((other) => celEqual(other, item)));
}
