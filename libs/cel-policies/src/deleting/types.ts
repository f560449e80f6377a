import type { KubeObject } from '@edict/foundation';
import type { MatchCondition, MatchResources, Variable } from '../api/types';

// DeletingPolicy and NamespacedDeletingPolicy as Kyverno serves them (api/policies.kyverno.io/v1):
// objects arrive as parsed YAML/JSON, so every field is optional here and checked by
// deletingPolicyErrors.

export type DeletingPolicyKind = 'DeletingPolicy' | 'NamespacedDeletingPolicy';

/** metav1.DeletionPropagation, the values the CRD's enum allows. */
export type DeletionPropagation = 'Foreground' | 'Background' | 'Orphan';

export interface DeletingPolicySpec {
  matchConstraints?: MatchResources;
  /** Each must hold for an object to be deleted (at most 64). */
  conditions?: MatchCondition[];
  variables?: Variable[];
  /** Cron (5 fields, or a descriptor such as `@hourly`): when the policy runs. */
  schedule?: string;
  deletionPropagationPolicy?: DeletionPropagation;
}

export interface DeletingPolicyStatus {
  conditionStatus?: Record<string, unknown>;
  /** RFC 3339, seconds precision: the schedule slot the controller last ran. */
  lastExecutionTime?: string;
}

/** A DeletingPolicy or NamespacedDeletingPolicy object. */
export interface DeletingPolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObject['metadata'];
  spec?: DeletingPolicySpec;
  status?: DeletingPolicyStatus;
}
