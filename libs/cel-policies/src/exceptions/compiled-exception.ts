import type { KubeObject } from '@edict/foundation';
import type { PolicyRef } from '../api/types';

/** A policies.kyverno.io PolicyException, compiled once. */
export interface CompiledCelPolicyException {
  readonly exception: KubeObject;
  readonly name: string;
  readonly namespace: string;
  readonly policyRefs: readonly PolicyRef[];
  readonly images: readonly string[];
  readonly allowedValues: readonly string[];
  /** skip (default) or pass: the result a matched exception gives. */
  readonly reportResult: 'skip' | 'pass';
  /** expiresAt in epoch milliseconds; the exception no longer applies from then. */
  readonly expiresAt?: number;
}
