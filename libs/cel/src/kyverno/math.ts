import type { Environment } from '@marcbachmann/cel-js';
import { namespaceFunction } from '../libraries/namespace';

/**
 * Kyverno's math library: `math.round(value, precision)` rounds a double to `precision` decimal
 * places, halves away from zero (Go's math.Round), as Kyverno computes it: round(v*10^p)/10^p.
 */
export function registerKyvernoMath(env: Environment): void {
  namespaceFunction(env, 'math.round(double, int): double', (value: number, precision: bigint) => {
    const shift = Math.pow(10, Number(precision));
    return goRound(value * shift) / shift;
  });
}

/** Go's math.Round: half away from zero (JavaScript's Math.round goes half up). */
function goRound(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.sign(value) * Math.round(Math.abs(value));
}
