/**
 * The decisions of the `/ivpol/mutate/...` and `/ivpol/validate/...` webhook paths for one admission
 * request: the ImageValidatingPolicies of the cache, evaluated in-process (their registry reads and
 * CEL libraries go through the cluster's ports) with the request's namespace object, roles, the
 * API server's authorizer and the CEL PolicyExceptions; each evaluation timed into Kyverno's
 * kyverno_image_validating_policy_* metrics.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  imagePolicyMutation,
  imagePolicyValidation,
  toResourceRequest,
  type AdmissionRequest,
  type ImagePolicyAdmissionOptions,
  type ImagePolicyOutcome,
  type ValidatingPolicyPath,
} from '@edict/admission';
import type { CompiledImageValidatingPolicy, ImageValidatingPolicyContext } from '@edict/cel-policies';
import { CEL_POLICY_SOURCE, type CelPolicySource } from '@edict/controller-runtime';
import { ClusterImagePolicyPorts, ClusterKyvernoCelPorts, KubeAccessReviewer } from '@edict/context';
import type { AdmissionDecision } from '@edict/admission';
import { AdmissionMetrics } from '../metrics/admission-metrics';
import { requestFacts } from './admission-engine';
import type { ValidatingPolicyInputs } from './validating-policy-review';

@Injectable()
export class ImageValidatingPolicyReviews {
  constructor(
    @Inject(CEL_POLICY_SOURCE) private readonly source: CelPolicySource,
    private readonly accessReviewer: KubeAccessReviewer,
    private readonly metrics: AdmissionMetrics,
    private readonly celPorts: ClusterKyvernoCelPorts,
    private readonly imagePorts: ClusterImagePolicyPorts,
  ) {}

  /** The cache's ImageValidatingPolicies, for one review. */
  policies(): readonly CompiledImageValidatingPolicy[] {
    return this.source.imageValidatingPolicies?.() ?? [];
  }

  async validate(
    path: ValidatingPolicyPath,
    request: AdmissionRequest,
    inputs: Omit<ValidatingPolicyInputs, 'policies'>,
  ): Promise<ImagePolicyOutcome> {
    const resourceRequest = this.resourceRequest(request, inputs);
    const facts = requestFacts(resourceRequest);
    return imagePolicyValidation(resourceRequest, this.policies(), path, inputs.config, {
      ...this.options(inputs),
      ...(inputs.metered === false
        ? {}
        : {
            onEvaluated: ({ compiled, response }, seconds) =>
              this.metrics.recordImageValidatingPolicy(
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

  async mutate(
    path: ValidatingPolicyPath,
    request: AdmissionRequest,
    inputs: Omit<ValidatingPolicyInputs, 'policies'>,
  ): Promise<AdmissionDecision> {
    const resourceRequest = this.resourceRequest(request, inputs);
    const { decision } = await imagePolicyMutation(
      resourceRequest,
      this.policies(),
      path,
      inputs.config,
      this.options(inputs),
    );
    return decision;
  }

  private resourceRequest(request: AdmissionRequest, inputs: Omit<ValidatingPolicyInputs, 'policies'>) {
    return toResourceRequest(request, {
      namespaceLabels: inputs.namespaceLabels,
      roles: inputs.roles,
      ...(inputs.topLevelKind ? { parentKind: inputs.topLevelKind } : {}),
    });
  }

  private options(inputs: Omit<ValidatingPolicyInputs, 'policies'>): ImagePolicyAdmissionOptions {
    const context: Omit<ImageValidatingPolicyContext, 'deadline'> = {
      ports: this.celPorts.ports,
      authorizer: this.accessReviewer,
      exceptions: this.source.policyExceptions(),
      ...(this.imagePorts.ports ? { images: this.imagePorts.ports } : {}),
    };
    return {
      namespaceObject: inputs.namespaceObject,
      context,
      deadline: inputs.deadline,
      admissionReports: inputs.admissionReports,
    };
  }
}
