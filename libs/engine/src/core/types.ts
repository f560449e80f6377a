import type { GroupVersionKind, JsonObject, KubeObject } from '@edict/foundation';
import type { PssCheckResult } from '../pss';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The requesting user as the API server reports it (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Kyverno's view of who is asking: the user plus the RBAC roles bound to them. */
export interface RequestUser {
  roles?: string[];
  clusterRoles?: string[];
  userInfo?: UserInfo;
}

/**
 * Everything the engine needs to know about one resource being evaluated. For admission this
 * comes from the AdmissionReview; for background scans and the CLI it is synthesised.
 */
export interface ResourceRequest {
  /** request.object: the new object (empty for DELETE). */
  resource?: KubeObject;
  /** request.oldObject: the previous object (UPDATE, DELETE). */
  oldResource?: KubeObject;
  operation: Operation;
  user?: RequestUser;
  /** Labels of the resource's namespace, for namespaceSelector. */
  namespaceLabels?: Record<string, string>;
  /** Subresource name when the request targets one (e.g. `status`, `exec`). */
  subresource?: string;
  /** The kind of the request when it differs from the object's own (subresources). */
  requestKind?: GroupVersionKind;
  dryRun?: boolean;
  /** The raw admission request when there is one; exposed as `request` to JMESPath. */
  admissionRequest?: JsonObject;
}

export type RuleStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip';
/** Kyverno's rule types; `Deletion` is a DeletingPolicy's answer in the CLI. */
export type RuleType = 'Validation' | 'Mutation' | 'Generation' | 'ImageVerify' | 'Deletion';

export interface RuleResponse {
  /** Rule name as it appears in the (autogen-expanded) policy. */
  name: string;
  type: RuleType;
  status: RuleStatus;
  message: string;
  /** Mutation: the resource after this rule's patches. */
  patchedResource?: KubeObject;
  /** Mutate-existing: the targets this rule patched, each after its patches. */
  patchedTargets?: KubeObject[];
  /** Generation: the objects this rule wants to exist. */
  generatedResources?: KubeObject[];
  /** Set when a PolicyException turned this rule into `skip`. */
  exceptions?: string[];
  /** Pod Security checks that failed (podSecurity rules). */
  podSecurityChecks?: readonly PssCheckResult[];
  /** Validation: Enforce or Audit for this rule on this resource. */
  failureAction?: 'Enforce' | 'Audit';
  /** Kyverno's report properties carried to the policy report. */
  properties?: Record<string, string>;
  /** CEL policies: the failed validation's `reason` (Unauthorized, Forbidden, Invalid, RequestEntityTooLarge). */
  reason?: string;
}

/** The kinds whose evaluation answers with a PolicyResponse: classic policies and Kyverno's CEL policies. */
export type PolicyResponseKind =
  | 'ClusterPolicy'
  | 'Policy'
  | 'ValidatingPolicy'
  | 'NamespacedValidatingPolicy'
  | 'ImageValidatingPolicy'
  | 'NamespacedImageValidatingPolicy'
  | 'MutatingPolicy'
  | 'NamespacedMutatingPolicy';

/** What a ValidatingPolicy does with a failed validation (admissionregistration's ValidationAction). */
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface PolicyResponse {
  policy: { name: string; namespace?: string; kind: PolicyResponseKind };
  resource: { apiVersion: string; kind: string; name: string; namespace?: string };
  /** One entry per rule that applied (matched and ran, or errored); rules that did not match are absent. */
  rules: RuleResponse[];
  /**
   * Validation failure action in effect for this resource (after overrides). For CEL policies it is
   * derived from `validationActions`: Enforce when they include Deny, else Audit.
   */
  validationFailureAction: 'Enforce' | 'Audit';
  /** CEL policies: the policy's validationActions (Deny, Warn, Audit), which the handler applies. */
  validationActions?: readonly ValidationAction[];
  /** CEL policies: the policy's failurePolicy; an `error` rule denies only under Fail. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** CEL policies: auditAnnotations evaluated for this request (key `<policy>/<key>` as Kubernetes names them). */
  auditAnnotations?: Record<string, string>;
  /** Warnings for the admission response (validation failures under the Warn action). */
  warnings?: string[];
}
