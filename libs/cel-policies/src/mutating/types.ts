import type { JsonPatchOperation, PolicyResponse } from '@edict/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { AuditAnnotation, AutogenTarget, MatchCondition, MatchResources, Variable } from '../api/types';

// The MutatingPolicy API as Kyverno serves it (api/policies.kyverno.io/v1 mutating_policy.go): the
// fields the engine reads. Objects arrive as parsed YAML/JSON, so every field is optional here and
// checked by mutatingPolicyErrors.

export type MutatingPolicyKind = 'MutatingPolicy' | 'NamespacedMutatingPolicy';

/** One mutation (admissionregistration's Mutation): a patch type and its expression. */
export interface Mutation {
  patchType?: string;
  applyConfiguration?: { expression?: string };
  jsonPatch?: { expression?: string };
}

/** spec.targetMatchConstraints: match resources (inline) or a CEL expression listing the targets. */
export interface TargetMatchConstraints extends MatchResources {
  expression?: string;
}

export interface MutatingPolicySpec {
  matchConstraints?: MatchResources;
  failurePolicy?: 'Fail' | 'Ignore';
  targetMatchConstraints?: TargetMatchConstraints;
  /** Conditions on each existing target (mutate-existing with targetMatchConstraints), in place of matchConditions. */
  targetMatchConditions?: MatchCondition[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
  autogen?: {
    podControllers?: { controllers?: string[] };
    mutatingAdmissionPolicy?: { enabled?: boolean };
  };
  mutations?: Mutation[];
  /** Evaluated on the mutated object; Kyverno puts them in the report result's properties. */
  auditAnnotations?: AuditAnnotation[];
  webhookConfiguration?: { timeoutSeconds?: number };
  evaluation?: {
    mode?: 'Kubernetes' | 'JSON';
    admission?: { enabled?: boolean };
    background?: { enabled?: boolean };
    mutateExisting?: { enabled?: boolean };
  };
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** One pod-controller autogen config of a MutatingPolicy (status.autogen.configs.<name>). */
export interface MutatingAutogenConfig {
  readonly name: string;
  readonly targets: readonly AutogenTarget[];
  readonly spec: MutatingPolicySpec;
}

/** A MutatingPolicy compiled once: what the webhook, the background controller and the CLI need. */
export interface CompiledMutatingPolicy {
  readonly policy: KubeObject;
  readonly kind: MutatingPolicyKind;
  readonly name: string;
  /** NamespacedMutatingPolicy: its namespace; it only ever applies to (and targets) objects there. */
  readonly namespace?: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  /** evaluation.admission.enabled (default true). */
  readonly admission: boolean;
  /** evaluation.background.enabled (default true). */
  readonly background: boolean;
  /** evaluation.mutateExisting.enabled (default false). */
  readonly mutateExisting: boolean;
  readonly timeoutSeconds?: number;
  /** matchConstraints with the autogen targets' resources added, for webhook rules. */
  readonly matchConstraints: MatchResources;
  /** spec.targetMatchConstraints as written (undefined: the targets are what matchConstraints matches). */
  readonly targetMatchConstraints?: TargetMatchConstraints;
  readonly matchConditions: readonly MatchCondition[];
  readonly autogen: readonly MutatingAutogenConfig[];
  /** status.autogen as Kyverno writes it (`{}` when none). */
  readonly autogenStatus: JsonObject;
}

export type MutatingPolicyStatus = 'pass' | 'fail' | 'skip' | 'error';

/** One MutatingPolicy's answer on one object, as Kyverno's mpol engine responds. */
export interface MutatingPolicyResult {
  readonly status: MutatingPolicyStatus;
  readonly message: string;
  /** The response in the classic engine's shape (one Mutation rule, named '' as Kyverno names it). */
  readonly response: PolicyResponse;
  /** status pass: the object after every mutation (equal to the input when nothing changed). */
  readonly patchedResource?: KubeObject;
  /** status pass: RFC 6902 operations from the input object to patchedResource ([] when unchanged). */
  readonly patches: readonly JsonPatchOperation[];
}
