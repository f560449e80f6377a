/**
 * The engine the webhooks call: exceptions from the policy cache, context entries through the
 * cluster's loaders, validate.cel parameters, namespaces and authorizer checks from the API server, and every policy evaluation timed and counted into Kyverno's policy metrics
 * on the way out.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { NO_TRACING, TRACING, type Tracing } from '@edict/foundation';
import type { AdmissionEngine, AdmissionRequest } from '@edict/admission';
import {
  Engine,
  type CompiledPolicy,
  type EvaluationOptions,
  type ImageVerificationResponse,
  type MutationResponse,
  type PolicyResponse,
  type ResourceRequest,
} from '@edict/engine';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import { ClusterContextLoaders, ClusterResourceLoader, KubeAccessReviewer } from '@edict/context';
import { AdmissionMetrics, type RequestFacts } from '../metrics/admission-metrics';

@Injectable()
export class InstrumentedEngine implements AdmissionEngine {
  private readonly engine: Engine;

  constructor(
    cache: PolicyCache,
    private readonly metrics: AdmissionMetrics,
    loaders: ClusterContextLoaders,
    resources: ClusterResourceLoader,
    accessReviewer: KubeAccessReviewer,
    config: AdmissionConfigService,
    @Optional() @Inject(TRACING) tracing: Tracing = NO_TRACING,
  ) {
    // The size bounds follow the ConfigMap's `maxContextSize`.
    this.engine = new Engine({
      exceptions: () => cache.exceptions(),
      loaders,
      resources,
      accessReviewer,
      limits: () => config.current().limits,
      tracing,
    });
  }

  async validate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options?: EvaluationOptions,
  ): Promise<PolicyResponse> {
    const started = performance.now();
    const response = await this.engine.validate(compiled, request, options);
    this.record(compiled, request, response, started);
    return response;
  }

  async mutate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options?: EvaluationOptions,
  ): Promise<MutationResponse> {
    const started = performance.now();
    const response = await this.engine.mutate(compiled, request, options);
    this.record(compiled, request, response, started);
    return response;
  }

  async verifyImages(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options?: EvaluationOptions,
  ): Promise<ImageVerificationResponse> {
    const started = performance.now();
    const response = await this.engine.verifyImages(compiled, request, options);
    this.record(compiled, request, response, started);
    return response;
  }

  generate: Engine['generate'] = (...args) => this.engine.generate(...args);

  /** The same engine (same loaders) without the metrics, for dry evaluations (admin `evaluate`) that must not count. */
  unmetered(): Engine {
    return this.engine;
  }

  private record(compiled: CompiledPolicy, request: ResourceRequest, response: PolicyResponse, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    this.metrics.recordPolicy(response, compiled.policy.spec.background !== false, requestFacts(request), seconds);
  }
}

/** The metric labels of a request (from the raw admission request it came from). */
export function requestFacts(request: ResourceRequest): RequestFacts {
  const admission = request.admissionRequest as unknown as AdmissionRequest | undefined;
  return {
    kind: admission?.kind?.kind ?? request.resource?.kind ?? '',
    namespace: admission?.namespace ?? '',
    operation: request.operation ?? admission?.operation ?? '',
    dryRun: admission?.dryRun === true,
  };
}
