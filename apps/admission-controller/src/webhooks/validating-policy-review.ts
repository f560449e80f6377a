/**
 * The decision of a `/vpol/...` webhook path for one admission request: the ValidatingPolicies of
 * the cache, evaluated in-process (their CEL libraries read the cluster through ports, which the
 * review workers do not hold) with the request's namespace object, roles, the cluster's Kyverno
 * CEL ports, the API server's authorizer and the CEL PolicyExceptions; each evaluation timed into
 * Kyverno's kyverno_validating_policy_* metrics. The admin `evaluate` endpoint calls the same.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  toResourceRequest,
  validatingPolicyAdmission,
  type AdmissionConfig,
  type AdmissionRequest,
  type RequestRoles,
  type ValidatingPolicyOutcome,
  type ValidatingPolicyPath,
} from '@edict/admission';
import type { CelPolicyContext, CompiledValidatingPolicy } from '@edict/cel-policies';
import { CEL_POLICY_SOURCE, type CelPolicySource } from '@edict/controller-runtime';
import { ClusterKyvernoCelPorts, KubeAccessReviewer } from '@edict/context';
import type { EvaluationDeadline, GroupVersionKind, KubeObject } from '@edict/foundation';
import { AdmissionMetrics } from '../metrics/admission-metrics';
import { requestFacts } from './admission-engine';

/** What one vpol decision reads besides the request, taken once per review. */
export interface ValidatingPolicyInputs {
  readonly policies: readonly CompiledValidatingPolicy[];
  readonly config: AdmissionConfig;
  readonly namespaceLabels?: Record<string, string>;
  readonly namespaceObject: KubeObject | null;
  readonly roles?: RequestRoles;
  readonly topLevelKind?: GroupVersionKind;
  readonly admissionReports?: boolean;
  readonly deadline?: EvaluationDeadline;
  /** False for dry evaluations (admin `evaluate`): nothing is counted. */
  readonly metered?: boolean;
}

@Injectable()
export class ValidatingPolicyReviews {
  constructor(
    @Inject(CEL_POLICY_SOURCE) private readonly source: CelPolicySource,
    private readonly accessReviewer: KubeAccessReviewer,
    private readonly metrics: AdmissionMetrics,
    private readonly celPorts: ClusterKyvernoCelPorts,
  ) {}

  /** The cache's ValidatingPolicies, for one review. */
  policies(): readonly CompiledValidatingPolicy[] {
    return this.source.validatingPolicies();
  }

  async decide(
    path: ValidatingPolicyPath,
    request: AdmissionRequest,
    inputs: ValidatingPolicyInputs,
  ): Promise<ValidatingPolicyOutcome> {
    const resourceRequest = toResourceRequest(request, {
      namespaceLabels: inputs.namespaceLabels,
      roles: inputs.roles,
      ...(inputs.topLevelKind ? { parentKind: inputs.topLevelKind } : {}),
    });
    const context: Omit<CelPolicyContext, 'deadline'> = {
      ports: this.celPorts.ports,
      authorizer: this.accessReviewer,
      exceptions: this.source.policyExceptions(),
    };
    const facts = requestFacts(resourceRequest);
    return validatingPolicyAdmission(resourceRequest, inputs.policies, path, inputs.config, {
      namespaceObject: inputs.namespaceObject,
      context,
      deadline: inputs.deadline,
      admissionReports: inputs.admissionReports,
      ...(inputs.metered === false
        ? {}
        : {
            onEvaluated: ({ compiled, response }, seconds) =>
              this.metrics.recordValidatingPolicy(
                {
                  name: compiled.name,
                  namespace: compiled.namespace ?? '',
                  mode: compiled.mode,
                  background: compiled.background,
                  rules: response.rules,
                },
                facts,
                seconds,
              ),
          }),
    });
  }
}
