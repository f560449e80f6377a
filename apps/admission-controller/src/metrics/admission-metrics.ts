/**
 * Prometheus metrics with Kyverno's names and labels, on a registry of their own (so two
 * controllers in one process, as in tests, do not collide).
 */
import { Injectable } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { POLICY_RESULT_LABELS, type PolicyResultLabel } from '@edict/controller';
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
const REQUEST_LABELS = [
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'request_allowed',
] as const;
type RequestLabel = (typeof REQUEST_LABELS)[number];

/** Kyverno's rule_type values. */
const RULE_TYPE_LABELS: Record<string, string> = {
  Validation: 'validate',
  Mutation: 'mutate',
  Generation: 'generate',
  ImageVerify: 'verifyImages',
};

/** Lower-case label values of the usual operations and failure actions, so they are not made anew per result. */
const LOWER_CASE: Readonly<Record<string, string>> = {
  CREATE: 'create',
  UPDATE: 'update',
  DELETE: 'delete',
  CONNECT: 'connect',
  Enforce: 'enforce',
  Audit: 'audit',
};

function lowerCase(value: string): string {
  return Object.prototype.hasOwnProperty.call(LOWER_CASE, value) ? LOWER_CASE[value]! : value.toLowerCase();
}

/** Bucket bounds in seconds, fine at the low end where admission latency lives. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

@Injectable()
export class AdmissionMetrics {
  readonly registry = new Registry();
  /** Per review: its count and answer time by request labels. */
  private readonly requests = new TalliedMetrics<RequestLabel>(REQUEST_LABELS, BUCKETS);
  /** Per rule result: its count and its policy's evaluation time by Kyverno's policy result labels. */
  private readonly policies = new TalliedMetrics<PolicyResultLabel>(POLICY_RESULT_LABELS, BUCKETS);

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
    this.requests.observe(
      [request.kind, request.namespace || '-', lowerCase(request.operation), allowed ? 'true' : 'false'],
      this.requests.bucketOf(seconds),
      seconds,
    );
  }

  /** One result (and the policy's evaluation time) per rule that applied. */
  recordPolicy(response: PolicyResult, background: boolean, request: RequestFacts, seconds: number): void {
    const bucket = this.policies.bucketOf(seconds);
    const policyType = response.policy.kind === 'ClusterPolicy' ? 'cluster' : 'namespaced';
    const backgroundMode = background ? 'true' : 'false';
    const policyNamespace = response.policy.namespace || '-';
    const resourceNamespace = request.namespace || '-';
    const operation = lowerCase(request.operation);
    for (const rule of response.rules) {
      // In the order of POLICY_RESULT_LABELS.
      this.policies.observe(
        [
          lowerCase(rule.failureAction ?? response.validationFailureAction),
          policyType,
          backgroundMode,
          response.policy.name,
          policyNamespace,
          request.kind,
          resourceNamespace,
          operation,
          rule.name,
          rule.status,
          RULE_TYPE_LABELS[rule.type] ?? rule.type,
          'admission_request',
        ],
        bucket,
        seconds,
      );
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
