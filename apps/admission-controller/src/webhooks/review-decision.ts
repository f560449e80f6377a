/**
 * The decision of one resource webhook path (validate or mutate, fail or ignore) for one admission
 * request, as a pure function of a policy snapshot, the admission config and an engine. The webhook
 * handler and the admin `evaluate` endpoint both call it, so what an operator tries out is exactly
 * what the webhook decides. Nothing here writes anything: report results and update requests stay
 * in the outcome (`validation.after`) for the caller to act on, or not.
 */
import {
  allow,
  mutateAdmission,
  toResourceRequest,
  validateAdmission,
  type AdmissionConfig,
  type AdmissionDecision,
  type AdmissionEngine,
  type AdmissionRequest,
  type FailurePolicy,
  type MutationOutcome,
  type RequestRoles,
  type ValidatingPolicyOutcome,
  type ImagePolicyOutcome,
  type ValidationOutcome,
  type UpdateRequestSpec,
} from '@edict/admission';
import type { CompiledPolicy } from '@edict/engine';
import type { EvaluationDeadline, GroupVersionKind } from '@edict/foundation';
import type { PolicyRuleType, PolicySnapshot } from '@edict/policy';

export type ReviewKind = 'validate' | 'mutate';

export interface ReviewInputs {
  /** One snapshot for the whole review. */
  readonly snapshot: PolicySnapshot;
  readonly config: AdmissionConfig;
  readonly engine: AdmissionEngine;
  /** Labels of the request's namespace (for namespaceSelector). */
  readonly namespaceLabels?: Record<string, string>;
  /** The user's RBAC roles (for match.roles / clusterRoles and UpdateRequests). */
  readonly roles?: RequestRoles;
  /** The background controller's username (its requests skip background triggers). */
  readonly backgroundUsername?: string;
  /** Kyverno's --admissionReports: false builds no report results. */
  readonly admissionReports?: boolean;
  /**
   * For a subresource request, the kind of the resource it is about (`Pod` for `pods/exec`, whose
   * admission kind is PodExecOptions): policies select and match on it, as Kyverno's do.
   */
  readonly topLevelKind?: GroupVersionKind;
  /** When the engine must stop (the review's deadline); the decision then rejects with EvaluationDeadlineExceeded. */
  readonly deadline?: EvaluationDeadline;
  /** For the audits after the answer: no end, but turns taken fairly (FairTurns.turnsOnly). */
  readonly auditDeadline?: EvaluationDeadline;
}

export interface ReviewOutcome {
  readonly decision: AdmissionDecision;
  /** The policies the path serves for this request, in the order they ran. */
  readonly policies: readonly CompiledPolicy[];
  readonly validation?: ValidationOutcome;
  readonly mutation?: MutationOutcome;
  /** A `/vpol/...` review: the ValidatingPolicies' outcome. */
  readonly validatingPolicies?: ValidatingPolicyOutcome;
  /** An `/ivpol/validate/...` review: the ImageValidatingPolicies' outcome. */
  readonly imagePolicies?: ImagePolicyOutcome;
  /** A `/gpol/...` review: the GeneratingPolicies' UpdateRequests, stored before the answer. */
  readonly generatingPolicyRequests?: readonly UpdateRequestSpec[];
}

/** The policies a webhook path serves for the request: the cache's selection, in key order. */
export function reviewPolicies(
  snapshot: PolicySnapshot,
  kind: ReviewKind,
  failurePolicy: FailurePolicy,
  request: AdmissionRequest,
  topLevelKind?: GroupVersionKind,
): CompiledPolicy[] {
  const gvk = topLevelKind ?? request.kind;
  const query = (type: PolicyRuleType) =>
    snapshot.policiesFor({
      kind: gvk.kind,
      group: gvk.group ?? '',
      version: gvk.version ?? '',
      subresource: request.subResource || undefined,
      operation: request.operation,
      namespace: request.namespace,
      type,
      failurePolicy,
    });
  if (kind === 'mutate') {
    // Kyverno's mutating webhook runs the mutate rules, then the verifyImages rules on the result.
    const byKey = new Map<string, CompiledPolicy>();
    for (const type of ['mutate', 'verify-images'] as const)
      for (const policy of query(type)) byKey.set(policy.key, policy.compiled);
    return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, compiled]) => compiled);
  }
  // Kyverno's validating webhook also sees generate and mutate-existing triggers (their
  // UpdateRequests come from `validation.after()`); validateAdmission evaluates only validate rules,
  // among them verifyImages rules with verifyDigest/required (the digest and annotation checks).
  const byKey = new Map<string, CompiledPolicy>();
  for (const type of ['validate', 'verify-images', 'generate', 'mutate-existing'] as const)
    for (const policy of query(type)) byKey.set(policy.key, policy.compiled);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, compiled]) => compiled);
}

/** What the `kind`/`failurePolicy` webhook path answers for `request`. */
export async function decideReview(
  kind: ReviewKind,
  failurePolicy: FailurePolicy,
  request: AdmissionRequest,
  inputs: ReviewInputs,
): Promise<ReviewOutcome> {
  const policies = reviewPolicies(inputs.snapshot, kind, failurePolicy, request, inputs.topLevelKind);
  if (policies.length === 0) return { decision: allow(), policies };
  const resourceRequest = toResourceRequest(request, {
    namespaceLabels: inputs.namespaceLabels,
    roles: inputs.roles,
    ...(inputs.topLevelKind ? { parentKind: inputs.topLevelKind } : {}),
  });
  const options = {
    failurePolicy,
    backgroundUsername: inputs.backgroundUsername,
    admissionReports: inputs.admissionReports,
    deadline: inputs.deadline,
    auditDeadline: inputs.auditDeadline,
  };
  if (kind === 'validate') {
    const validation = await validateAdmission(resourceRequest, policies, inputs.engine, inputs.config, options);
    return { decision: validation.decision, policies, validation };
  }
  const mutation = await mutateAdmission(resourceRequest, policies, inputs.engine, inputs.config, options);
  return { decision: mutation.decision, policies, mutation };
}
