import type { PolicyFieldError } from '../api/types';

/** A MutatingPolicy that cannot be compiled: every problem, each with its field path. */
export class MutatingPolicyError extends Error {
  override readonly name = 'MutatingPolicyError';
  constructor(
    readonly policyName: string,
    readonly errors: readonly PolicyFieldError[],
  ) {
    super(`policy ${policyName} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}
