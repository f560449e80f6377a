/**
 * Prometheus metrics with Kyverno's names and labels, on a registry of their own (so two
 * controllers in one process, as in tests, do not collide).
 */
import { Injectable } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import type { PolicyResultLabel } from '@edict/controller';
import { TalliedMetrics } from './tallied-metrics';

/** What the admission metrics need to know about a request. */
export interface RequestFacts {
  readonly kind: string;
  readonly namespace: string;
  /** CREATE, UPDATE, ... (Kyverno labels it lower case). */
  readonly operation: string;
}

/** What the policy metrics read of a policy response (a review worker sends no more). */
export type PolicyResult = Pick<PolicyResponse, 'policy' | 'validationFailureAction'> & {
  readonly rules: readonly Pick<RuleResponse, 'name' | 'type' | 'status' | 'failureAction'>[];
};

/** Kyverno's labels of the admission request metrics. */
type RequestLabel = 'resource_kind' | 'resource_namespace' | 'resource_request_operation' | 'request_allowed';

/** Kyverno's rule_type values. */
const RULE_TYPE_LABELS: Record<string, string> = {
  Validation: 'validate',
  Mutation: 'mutate',
  Generation: 'generate',
  ImageVerify: 'verifyImages',
};

/** Bucket bounds in seconds, fine at the low end where admission latency lives. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

@Injectable()
export class AdmissionMetrics {
  readonly registry = new Registry();
  /** Per review: its count and answer time by request labels. */
  private readonly requests = new TalliedMetrics<RequestLabel>(BUCKETS);
  /** Per rule result: its count and its policy's evaluation time by Kyverno's policy result labels. */
  private readonly policies = new TalliedMetrics<PolicyResultLabel>(BUCKETS);

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests.registerCounter(
      this.registry,
      'kyverno_admission_requests_total',
      'Admission requests handled by the webhooks.',
    );
    this.requests.registerHistogram(
      this.registry,
      'kyverno_admission_review_duration_seconds',
      'Time taken to answer an admission review.',
    );
    this.policies.registerCounter(
      this.registry,
      'kyverno_policy_results_total',
      'Results of rules applied to admission requests.',
    );
    this.policies.registerHistogram(
      this.registry,
      'kyverno_policy_execution_duration_seconds',
      'Time taken to evaluate a rule (measured per policy evaluation).',
    );
  }

  recordReview(request: RequestFacts, allowed: boolean, seconds: number): void {
    const namespace = request.namespace || '-';
    const operation = request.operation.toLowerCase();
    // Keys join the label values themselves, so one key is one label set.
    this.requests.observe(
      `${request.kind}\u0000${namespace}\u0000${operation}\u0000${allowed}`,
      () => ({
        resource_kind: request.kind,
        resource_namespace: namespace,
        resource_request_operation: operation,
        request_allowed: String(allowed),
      }),
      this.requests.bucketOf(seconds),
      seconds,
    );
  }

  /** One result (and the policy's evaluation time) per rule that applied. */
  recordPolicy(response: PolicyResult, background: boolean, request: RequestFacts, seconds: number): void {
    const bucket = this.policies.bucketOf(seconds);
    // The labels every rule of the response shares, once per response.
    const shared = {
      policy_type: response.policy.kind === 'ClusterPolicy' ? 'cluster' : 'namespaced',
      policy_background_mode: String(background),
      policy_name: response.policy.name,
      policy_namespace: response.policy.namespace || '-',
      resource_kind: request.kind,
      resource_namespace: request.namespace || '-',
      resource_request_operation: request.operation.toLowerCase(),
    };
    const prefix = Object.values(shared).join('\u0000');
    for (const rule of response.rules) {
      const mode = (rule.failureAction ?? response.validationFailureAction).toLowerCase();
      const type = RULE_TYPE_LABELS[rule.type] ?? rule.type;
      this.policies.observe(
        `${prefix}\u0000${mode}\u0000${rule.name}\u0000${rule.status}\u0000${type}`,
        () => ({
          policy_validation_mode: mode,
          policy_type: shared.policy_type,
          policy_background_mode: shared.policy_background_mode,
          policy_name: shared.policy_name,
          policy_namespace: shared.policy_namespace,
          resource_kind: shared.resource_kind,
          resource_namespace: shared.resource_namespace,
          resource_request_operation: shared.resource_request_operation,
          rule_name: rule.name,
          rule_result: rule.status,
          rule_type: type,
          rule_execution_cause: 'admission_request',
        }),
        bucket,
        seconds,
      );
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
