import type { Environment } from '@marcbachmann/cel-js';
import { errorMessage, randomFromPattern } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { namespaceFunction } from '../libraries/namespace';
import type { KyvernoCelLimits } from './ports';

const DEFAULT_PATTERN = '[0-9a-z]{8}';

/**
 * Kyverno's random library: `random()` (8 characters of [0-9a-z]) and `random(pattern)`, a string
 * matching a regular expression (goregen's way: unbounded repeats stop 10 past their minimum);
 * also `random.random(...)`. Patterns are bounded in length and in the longest string they can make.
 */
export function registerRandom(env: Environment, limits: KyvernoCelLimits): void {
  const generate = (pattern: string): string => {
    if (pattern.length > limits.maxPatternLength) {
      throw celError(`random: the pattern is longer than ${limits.maxPatternLength} characters`);
    }
    try {
      return randomFromPattern(pattern);
    } catch (error) {
      throw celError(errorMessage(error));
    }
  };
  env.registerFunction('random(): string', () => generate(DEFAULT_PATTERN));
  env.registerFunction('random(string): string', generate);
  namespaceFunction(env, 'random.random(): string', () => generate(DEFAULT_PATTERN));
  namespaceFunction(env, 'random.random(string): string', generate);
}
