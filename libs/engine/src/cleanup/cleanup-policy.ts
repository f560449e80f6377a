/** Kyverno's CleanupPolicy and ClusterCleanupPolicy (kyverno.io/v2, v2beta1) as the engine reads them. */
import type { JsonObject } from '@edict/foundation';
import type { Conditions, ContextEntry, MatchResources } from '../policy/types';

export const CLEANUP_POLICY_KINDS = ['CleanupPolicy', 'ClusterCleanupPolicy'] as const;
export type CleanupPolicyKind = (typeof CLEANUP_POLICY_KINDS)[number];
export const DELETION_PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'] as const;
export type DeletionPropagationPolicy = (typeof DELETION_PROPAGATION_POLICIES)[number];

export interface CleanupPolicySpec {
  match?: MatchResources;
  exclude?: MatchResources;
  conditions?: Conditions;
  context?: ContextEntry[];
  schedule?: string;
  deletionPropagationPolicy?: DeletionPropagationPolicy;
}

export interface CleanupPolicy {
  apiVersion?: string;
  kind?: CleanupPolicyKind;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string; creationTimestamp?: string };
  spec: CleanupPolicySpec;
  status?: { lastExecutionTime?: string; conditions?: JsonObject[] };
}

export function isCleanupPolicyKind(kind: unknown): kind is CleanupPolicyKind {
  return (CLEANUP_POLICY_KINDS as readonly unknown[]).includes(kind);
}
