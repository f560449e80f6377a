import type { PolicyFieldError } from '../api/types';

/** A DeletingPolicy that cannot be compiled: every problem, each with its field path. */
export class DeletingPolicyError extends Error {
  override readonly name = 'DeletingPolicyError';
  constructor(
    readonly policyName: string,
    readonly errors: readonly PolicyFieldError[],
  ) {
    super(`policy ${policyName} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}
