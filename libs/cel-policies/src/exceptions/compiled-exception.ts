import type { KubeObject } from '@edict/foundation';
import type { PolicyRef } from '../api/types';
import type { NamedProgram } from '../compile/compiled-expressions';

/** A policies.kyverno.io PolicyException, compiled once. */
export interface CompiledCelPolicyException {
  readonly exception: KubeObject;
  readonly name: string;
  readonly namespace: string;
  /** `namespace/name` (or `name`), as Kyverno names an exception in responses. */
  readonly key: string;
  readonly policyRefs: readonly PolicyRef[];
  readonly matchConditions: readonly NamedProgram[];
  /** Whether its match conditions read `request` (built only then). */
  readonly readsRequest: boolean;
  /** Whether its match conditions read a Kyverno library variable. */
  readonly readsLibraries: boolean;
  readonly images: readonly string[];
  readonly allowedValues: readonly string[];
  /** skip (default) or pass: the result a matched exception gives. */
  readonly reportResult: 'skip' | 'pass';
  /** expiresAt in epoch milliseconds; the exception no longer applies from then. */
  readonly expiresAt?: number;
}
