/**
 * Prometheus metrics with Kyverno's names and labels, on a registry of their own (so two
 * controllers in one process, as in tests, do not collide).
 */
import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { POLICY_RESULT_LABELS, type PolicyResultLabel } from '@edict/controller';

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

const REQUEST_LABELS = [
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'request_allowed',
] as const;

/** Kyverno's rule_type values. */
const RULE_TYPE_LABELS: Record<string, string> = {
  Validation: 'validate',
  Mutation: 'mutate',
  Generation: 'generate',
  ImageVerify: 'verifyImages',
};

/** Label sets seen on the policy metrics whose children are kept (beyond this, looked up afresh). */
const MAX_CACHED_SERIES = 10_000;

interface PolicySeries {
  readonly results: { inc(): void };
  readonly duration: { observe(value: number): void };
}

/** Bucket bounds in seconds, fine at the low end where admission latency lives. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

@Injectable()
export class AdmissionMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'kyverno_admission_requests_total',
    help: 'Admission requests handled by the webhooks.',
    labelNames: REQUEST_LABELS,
    registers: [this.registry],
  });
  private readonly reviewDuration = new Histogram({
    name: 'kyverno_admission_review_duration_seconds',
    help: 'Time taken to answer an admission review.',
    labelNames: REQUEST_LABELS,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly policyResults = new Counter({
    name: 'kyverno_policy_results_total',
    help: 'Results of rules applied to admission requests.',
    labelNames: POLICY_RESULT_LABELS,
    registers: [this.registry],
  });
  private readonly policyDuration = new Histogram({
    name: 'kyverno_policy_execution_duration_seconds',
    help: 'Time taken to evaluate a rule (measured per policy evaluation).',
    labelNames: POLICY_RESULT_LABELS,
    buckets: BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  recordReview(request: RequestFacts, allowed: boolean, seconds: number): void {
    const labels = {
      resource_kind: request.kind,
      resource_namespace: request.namespace || '-',
      resource_request_operation: request.operation.toLowerCase(),
      request_allowed: String(allowed),
    };
    this.requests.inc(labels);
    this.reviewDuration.observe(labels, seconds);
  }

  /** One result (and the policy's evaluation time) per rule that applied. */
  recordPolicy(response: PolicyResult, background: boolean, request: RequestFacts, seconds: number): void {
    for (const rule of response.rules) {
      const labels = {
        policy_validation_mode: (rule.failureAction ?? response.validationFailureAction).toLowerCase(),
        policy_type: response.policy.kind === 'ClusterPolicy' ? 'cluster' : 'namespaced',
        policy_background_mode: String(background),
        policy_name: response.policy.name,
        policy_namespace: response.policy.namespace || '-',
        resource_kind: request.kind,
        resource_namespace: request.namespace || '-',
        resource_request_operation: request.operation.toLowerCase(),
        rule_name: rule.name,
        rule_result: rule.status,
        rule_type: RULE_TYPE_LABELS[rule.type] ?? rule.type,
        rule_execution_cause: 'admission_request',
      };
      const series = this.policySeries(labels);
      series.results.inc();
      series.duration.observe(seconds);
    }
  }

  /**
   * The children of both policy metrics for a label set. prom-client hashes the twelve labels
   * (sorting their names) on every call; every rule of every review lands here, so the children
   * are kept by a plain join of the values (label order is fixed above).
   */
  private readonly series = new Map<string, PolicySeries>();

  private policySeries(labels: Record<PolicyResultLabel, string>): PolicySeries {
    const key = POLICY_RESULT_LABELS.map((name) => labels[name]).join('\u0000');
    let series = this.series.get(key);
    if (!series) {
      if (this.series.size >= MAX_CACHED_SERIES) this.series.clear();
      series = { results: this.policyResults.labels(labels), duration: this.policyDuration.labels(labels) };
      this.series.set(key, series);
    }
    return series;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
