/**
 * `POST /admin/evaluate` behind the same bounds as a review: a slot from the webhooks' concurrency
 * limiter (a busy controller answers 429 rather than queueing debugging work ahead of reviews) and
 * the webhook's default deadline. The engine is the webhooks' own without metrics, so an evaluation
 * never shows up in `kyverno_policy_results_total` and friends. The CEL kinds (MutatingPolicy,
 * GeneratingPolicy, DeletingPolicy) run from the CEL policy cache through their engines, read-only.
 */
import { BadRequestException, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { deadlineFromTimeout, withDeadline } from '@edict/admission';
import { NamespaceLabels } from '../../cluster/namespace-labels.service';
import { InstrumentedEngine } from '../../webhooks/admission-engine';
import { AdmissionService, reviewTenant } from '../../webhooks/admission.service';
import { ValidatingPolicyReviews } from '../../webhooks/validating-policy-review';
import type { EvaluationDto } from './evaluate.dto';
import { evaluateAdmission } from './evaluate-admission';
import { parseEvaluationInput, withDiscoveredResource } from './evaluation-input';
import { ApiResources } from '@edict/kube';
import { CelPolicyCache } from '@edict/policy';
import { ClusterKyvernoCelPorts, KubeAccessReviewer } from '@edict/context';
import type { AdmissionRequest } from '@edict/admission';
import type { EvaluationDeadline } from '@edict/foundation';
import type { CelPolicyEvaluation } from './evaluate-cel-policies';

@Injectable()
export class EvaluateService {
  constructor(
    private readonly namespaces: NamespaceLabels,
    private readonly engine: InstrumentedEngine,
    private readonly admission: AdmissionService,
    private readonly apiResources: ApiResources,
    private readonly validatingPolicies: ValidatingPolicyReviews,
    private readonly celPolicies: CelPolicyCache,
    private readonly celPorts: ClusterKyvernoCelPorts,
    private readonly accessReviewer: KubeAccessReviewer,
  ) {}

  /** The loaded MutatingPolicies, GeneratingPolicies and DeletingPolicies, with what their CEL reads. */
  private async celPolicyEvaluation(
    request: AdmissionRequest,
    namespaceLabels: Record<string, string> | undefined,
    deadline: EvaluationDeadline,
  ): Promise<CelPolicyEvaluation> {
    const { namespaceObject } = await this.admission.validatingPolicyInputs(request, deadline, false);
    return {
      mutating: this.celPolicies.mutatingPolicies(),
      generating: this.celPolicies.generatingPolicies(),
      deleting: this.celPolicies.deletingPolicies(),
      context: {
        ports: this.celPorts.ports,
        authorizer: this.accessReviewer,
        exceptions: this.celPolicies.policyExceptions(),
        deadline,
      },
      namespaceObject,
      ...(namespaceLabels ? { namespaceLabels } : {}),
    };
  }

  async evaluate(body: unknown): Promise<EvaluationDto> {
    const input = parseEvaluationInput(body);
    if (!input.ok) throw new BadRequestException(input.message);
    const discovered = input.source === 'resource' ? await this.apiResources.resourceOf(input.request.kind) : undefined;
    const request = discovered ? withDiscoveredResource(input.request, discovered) : input.request;
    const namespaceLabels = input.namespaceLabels ?? (await this.namespaces.labelsForRequest(request));
    const deadlineAt = performance.now() + deadlineFromTimeout(undefined);
    const remaining = () => Math.max(1, deadlineAt - performance.now());
    const tenant = reviewTenant(request);
    const slot = await this.admission.limiter.run(
      tenant,
      () =>
        withDeadline(
          (deadline) =>
            Promise.all([
              this.admission.inputsFor(request, this.engine.unmetered(), deadline),
              this.celPolicyEvaluation(request, namespaceLabels, deadline),
            ]).then(([inputs, cel]) =>
              evaluateAdmission(
                request,
                namespaceLabels ? { ...inputs, namespaceLabels } : inputs,
                // The ValidatingPolicy paths as the webhook decides them, counted nowhere.
                async (path, current) => {
                  const vpolInputs = await this.admission.validatingPolicyInputs(current, deadline, false);
                  return this.validatingPolicies.decide(
                    path,
                    current,
                    namespaceLabels ? { ...vpolInputs, namespaceLabels } : vpolInputs,
                  );
                },
                cel,
              ),
            ),
          remaining(),
          // Taking turns with the reviews, as a review of the same namespace would.
          this.admission.turns.deadline(deadlineAt, tenant),
        ),
      remaining(),
    );
    if (!slot.admitted)
      throw new HttpException('the admission controller is busy with reviews; try again', HttpStatus.TOO_MANY_REQUESTS);
    if (slot.value.timedOut)
      throw new HttpException(
        `the evaluation did not finish within ${slot.value.afterMs}ms`,
        HttpStatus.GATEWAY_TIMEOUT,
      );
    return {
      request: {
        kind: { ...request.kind },
        resource: { ...request.resource },
        ...(request.subResource ? { subResource: request.subResource } : {}),
        ...(request.namespace ? { namespace: request.namespace } : {}),
        ...(request.name ? { name: request.name } : {}),
        operation: request.operation,
        userInfo: request.userInfo ?? {},
        dryRun: request.dryRun === true,
        ...(namespaceLabels ? { namespaceLabels } : {}),
      },
      ...(slot.value.value as Omit<EvaluationDto, 'request'>),
    };
  }
}
