/** What the policy cache holds and answers. */
import type { CompiledPolicy, FailurePolicy, Policy, PolicyException } from '@edict/engine';
import type { Diagnostic } from '@edict/foundation';

/** The webhook's rule families; `mutate-existing` are mutate rules with `targets`. */
export type PolicyRuleType = 'validate' | 'mutate' | 'mutate-existing' | 'generate' | 'verify-images';
export const POLICY_RULE_TYPES: readonly PolicyRuleType[] = [
  'validate',
  'mutate',
  'mutate-existing',
  'generate',
  'verify-images',
];

export type { FailurePolicy } from '@edict/engine';

/** A valid policy, compiled once (autogen rules included). */
export interface CachedPolicy {
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy (as exceptions and reports name it). */
  readonly key: string;
  readonly kind: 'ClusterPolicy' | 'Policy';
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly compiled: CompiledPolicy;
  /** The engine's `failurePolicyOf` (webhookConfiguration, then spec.failurePolicy, then Fail). */
  readonly failurePolicy: FailurePolicy;
  /** `spec.admission !== false`: only these are served to the admission webhook. */
  readonly admission: boolean;
  readonly ruleTypes: ReadonlySet<PolicyRuleType>;
  /** Validation warnings (what Kyverno's webhook would return as admission warnings). */
  readonly warnings: readonly Diagnostic[];
  /** The object as the API server sent it (status included), for the status writer. */
  readonly source?: Policy;
}

/**
 * What stays in force while a policy's stored version is invalid (see `enforcement.ts`):
 *  - `last-valid`: the last version that passed validation, as it was compiled then;
 *  - `enforcing-validate-rules`: no valid version is known (the controller started with the policy
 *    invalid), so the stored version's validate rules that can Enforce, as written.
 */
export interface EnforcedInstead {
  readonly basis: 'last-valid' | 'enforcing-validate-rules';
  /** The entry in the snapshot's `policies` under the same key. */
  readonly policy: CachedPolicy;
}

/** A policy whose stored version is invalid, with why (and what stays in force instead, if anything). */
export interface InvalidPolicy {
  readonly key: string;
  readonly kind: 'ClusterPolicy' | 'Policy';
  readonly name: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  /** The errors (and warnings) found; at least one error. */
  readonly problems: readonly Diagnostic[];
  /** The object as the API server sent it (status included), for the status writer. */
  readonly source?: Policy;
  /** Undefined: nothing is enforced for this policy (it is out of the cache). */
  readonly enforced?: EnforcedInstead;
}

/** A stored PolicyException and whether the cache uses it. */
export interface CachedException {
  readonly key: string;
  readonly exception: PolicyException;
  /** False when its namespace is outside `exceptionNamespaces` (always, when none are set). */
  readonly used: boolean;
  readonly problems: readonly Diagnostic[];
}

/** One admission request as the cache needs to see it. */
export interface PolicyQuery {
  readonly kind: string;
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly subresource?: string;
  /** CREATE, UPDATE, DELETE or CONNECT. */
  readonly operation: string;
  /** The request's namespace; `''`/absent for cluster-scoped resources (only ClusterPolicies then). */
  readonly namespace?: string;
  readonly type: PolicyRuleType;
  /** Only policies with this failure policy (the webhook's `fail` and `ignore` paths). */
  readonly failurePolicy?: FailurePolicy;
}

export interface PolicyCacheStats {
  /** Increases with every change that reached the cache. */
  readonly generation: number;
  readonly synced: boolean;
  readonly policies: number;
  readonly clusterPolicies: number;
  readonly namespacedPolicies: number;
  readonly invalidPolicies: number;
  readonly exceptions: number;
  readonly ignoredExceptions: number;
  /** Valid policies per rule type. */
  readonly byType: Readonly<Record<PolicyRuleType, number>>;
}
