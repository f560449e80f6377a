import type { PolicyFieldError } from '../api/types';

/** A GeneratingPolicy that cannot be compiled: every problem, each with its field path. */
export class GeneratingPolicyError extends Error {
  override readonly name = 'GeneratingPolicyError';
  constructor(
    readonly policyName: string,
    readonly errors: readonly PolicyFieldError[],
  ) {
    super(`policy ${policyName} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}
