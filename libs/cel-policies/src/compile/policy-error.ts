import type { PolicyFieldError } from '../api/types';

/** A policy that cannot be compiled: every problem, each with its field path. */
export class ValidatingPolicyError extends Error {
  override readonly name = 'ValidatingPolicyError';
  constructor(
    readonly policyName: string,
    readonly errors: readonly PolicyFieldError[],
  ) {
    super(`policy ${policyName} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}
