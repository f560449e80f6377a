/**
 * The decision of a `/mpol/...` webhook path for one admission request: the MutatingPolicies of the
 * cache, evaluated in-process (their CEL libraries read the cluster through ports) with the
 * request's namespace object, roles, the API server's authorizer and the CEL PolicyExceptions; each
 * evaluation timed into Kyverno's kyverno_mutating_policy_* metrics.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  mutatingPolicyAdmission,
  toResourceRequest,
  type AdmissionRequest,
  type MutatingPolicyOutcome,
  type MutatingPolicyPath,
} from '@edict/admission';
import type { CompiledMutatingPolicy, MutatingPolicyContext } from '@edict/cel-policies';
import { CEL_POLICY_SOURCE, type CelPolicySource } from '@edict/controller-runtime';
import { ClusterKyvernoCelPorts, KubeAccessReviewer } from '@edict/context';
import { AdmissionMetrics } from '../metrics/admission-metrics';
import { requestFacts } from './admission-engine';
import type { ValidatingPolicyInputs } from './validating-policy-review';

/** What one mpol decision reads besides the request (the vpol inputs, and the background controller's name). */
export type MutatingPolicyInputs = Omit<ValidatingPolicyInputs, 'policies'> & {
  readonly backgroundUsername?: string;
};

const NONE: readonly CompiledMutatingPolicy[] = [];

@Injectable()
export class MutatingPolicyReviews {
  constructor(
    @Inject(CEL_POLICY_SOURCE) private readonly source: CelPolicySource,
    private readonly accessReviewer: KubeAccessReviewer,
    private readonly metrics: AdmissionMetrics,
    private readonly celPorts: ClusterKyvernoCelPorts,
  ) {}

  /** The cache's MutatingPolicies, for one review. */
  policies(): readonly CompiledMutatingPolicy[] {
    return this.source.mutatingPolicies?.() ?? NONE;
  }

  async decide(
    path: MutatingPolicyPath,
    request: AdmissionRequest,
    inputs: MutatingPolicyInputs,
  ): Promise<MutatingPolicyOutcome> {
    const resourceRequest = toResourceRequest(request, {
      namespaceLabels: inputs.namespaceLabels,
      roles: inputs.roles,
      ...(inputs.topLevelKind ? { parentKind: inputs.topLevelKind } : {}),
    });
    const context: Omit<MutatingPolicyContext, 'deadline'> = {
      ports: this.celPorts.ports,
      authorizer: this.accessReviewer,
      exceptions: this.source.policyExceptions(),
    };
    const facts = requestFacts(resourceRequest);
    return mutatingPolicyAdmission(resourceRequest, this.policies(), path, inputs.config, {
      namespaceObject: inputs.namespaceObject,
      context,
      deadline: inputs.deadline,
      admissionReports: inputs.admissionReports,
      ...(inputs.backgroundUsername ? { backgroundUsername: inputs.backgroundUsername } : {}),
      ...(inputs.metered === false
        ? {}
        : {
            onEvaluated: ({ compiled, result }, seconds) =>
              this.metrics.recordMutatingPolicy(
                {
                  name: compiled.name,
                  namespace: compiled.namespace ?? '',
                  background: compiled.background,
                  status: result.status,
                },
                facts,
                seconds,
              ),
          }),
    });
  }
}
