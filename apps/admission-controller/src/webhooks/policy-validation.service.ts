/**
 * Kyverno's policy and exception validation webhooks: a ClusterPolicy/Policy (or a cleanup policy,
 * until the cleanup controller serves its own webhook) with errors is refused with the reason,
 * warnings travel back as admission warnings; an exception outside the configured namespaces is
 * admitted with a warning (it is stored but never used).
 */
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import {
  allow,
  deny,
  parseAdmissionReview,
  reviewResponse,
  type AdmissionDecision,
  type AdmissionRequest,
} from '@edict/admission';
import {
  checkRulesEdictRuns,
  isCleanupPolicyKind,
  isError,
  validateCleanupPolicy,
  validatePolicy,
  validatePolicyException,
  type CleanupPolicy,
  type Diagnostic,
  type Policy,
  type PolicyException,
} from '@edict/engine';
import { CustomResourceDefinitions } from '../cluster/custom-resource-definitions';
import type { ReviewAnswer } from './admission.service';

@Injectable()
export class PolicyValidationService implements OnModuleInit {
  constructor(
    private readonly config: AdmissionConfigService,
    private readonly customResources: CustomResourceDefinitions,
    private readonly policies: PolicyCache,
  ) {}

  /** The policy cache validates what it holds with the same cluster-scoped kinds as this webhook. */
  onModuleInit(): void {
    this.customResources.onChange(() => this.policies.setClusterScopedKinds(this.customResources.clusterScopedKinds()));
  }

  policy(body: unknown): ReviewAnswer {
    return this.answer(body, (request) => {
      if (isCleanupPolicyKind(request.object?.kind)) {
        return decisionFrom(
          validateCleanupPolicy(request.object as unknown as CleanupPolicy, {
            clusterScopedKinds: this.customResources.clusterScopedKinds(),
          }),
        );
      }
      const policy = request.object as unknown as Policy;
      const diagnostics = validatePolicy(policy, {
        namespaced: policy.kind === 'Policy',
        clusterScopedKinds: this.customResources.clusterScopedKinds(),
        againstCluster: true,
        ...(request.operation === 'UPDATE' && request.oldObject
          ? { previous: request.oldObject as unknown as Policy }
          : {}),
      });
      // Kyverno's checks first (their messages win); then what Edict cannot run, refused.
      return decisionFrom(diagnostics.some(isError) ? diagnostics : [...diagnostics, ...checkRulesEdictRuns(policy)]);
    });
  }

  exception(body: unknown): ReviewAnswer {
    return this.answer(body, (request) => {
      const namespaces = this.config.current().exceptionNamespaces;
      return decisionFrom(
        validatePolicyException(request.object as unknown as PolicyException, {
          allowedNamespaces: namespaces,
          enabled: namespaces.length > 0,
        }),
      );
    });
  }

  private answer(body: unknown, check: (request: AdmissionRequest) => AdmissionDecision): ReviewAnswer {
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) return { status: 400, body: { message: parsed.message } };
    const request = parsed.review.request;
    // Deleting a policy is never refused; there is nothing to check.
    const decision = request.operation === 'DELETE' || !request.object ? allow() : check(request);
    return { status: 200, body: reviewResponse(request.uid, decision) };
  }
}

/** Refused on the first error (as Kyverno stops there); warnings are passed through either way. */
function decisionFrom(diagnostics: readonly Diagnostic[]): AdmissionDecision {
  const warnings = diagnostics.filter((d) => !isError(d)).map((d) => d.message);
  const error = diagnostics.find(isError);
  return error ? deny(error.path ? `${error.path}: ${error.message}` : error.message, warnings) : allow(warnings);
}
