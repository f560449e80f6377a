/**
 * Prometheus metrics with Kyverno's names and labels, on a registry of their own (so two
 * controllers in one process, as in tests, do not collide).
 *
 * A request's kind and namespace become label values only when the controller knows them (a kind
 * the policies name or discovery served, a namespace the informer holds): anything that reaches the
 * webhook port can send reviews with made-up names, and each new label set is a series kept for the
 * process's life. Others are labelled `unknown`, and each metric keeps at most `maxSeries` label
 * sets (past it they fold into one `overflow` series, counted in `edict_metric_series_overflow_total`).
 */
import { Logger } from '@nestjs/common';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import {
  MetricsConfiguration,
  POLICY_RESULT_LABELS,
  TalliedMetrics,
  VALIDATING_POLICY_DURATION,
  VALIDATING_POLICY_LABELS,
  VALIDATING_POLICY_RESULTS_TOTAL,
  IMAGE_VALIDATING_POLICY_DURATION,
  IMAGE_VALIDATING_POLICY_RESULTS_TOTAL,
  MUTATING_POLICY_DURATION,
  MUTATING_POLICY_LABELS,
  MUTATING_POLICY_RESULTS_TOTAL,
  validatingPolicyStatus,
  type MutatingPolicyLabel,
  type PolicyResultLabel,
  type ValidatingPolicyLabel,
} from '@edict/controller-runtime';

/** What the admission metrics need to know about a request. */
export interface RequestFacts {
  readonly kind: string;
  readonly namespace: string;
  /** CREATE, UPDATE, ... (Kyverno labels it lower case). */
  readonly operation: string;
  /** The request's dryRun (Kyverno's `dry_run` label of the policy results). */
  readonly dryRun?: boolean;
}

/** What the policy metrics read of a policy response (a review worker sends no more). */
export type PolicyResult = Pick<PolicyResponse, 'policy' | 'validationFailureAction'> & {
  readonly rules: readonly Pick<RuleResponse, 'name' | 'type' | 'status' | 'failureAction'>[];
};

/** Which request kinds and namespaces may be label values (anything else is labelled `unknown`). */
export interface LabelVocabulary {
  /** A kind the policies name or discovery served. */
  knowsKind(kind: string): boolean;
  /** A namespace the namespace informer (or a live lookup) found. */
  knowsNamespace(namespace: string): boolean;
}

export interface AdmissionMetricsOptions {
  readonly vocabulary: LabelVocabulary;
  /** Label sets kept per metric; past it they fold into the `overflow` series. */
  readonly maxSeries: number;
  /** The `kyverno-metrics` ConfigMap: namespaces counted, bucket boundaries (default: Kyverno's). */
  readonly configuration?: MetricsConfiguration;
}

/** The label value of a kind or namespace the controller does not know. */
export const UNKNOWN_LABEL_VALUE = 'unknown';

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
  ImageVerify: 'imageVerify',
};

/** Kyverno's rule_type of a rule of no known type. */
const EMPTY_RULE_TYPE = '-';

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

const REQUESTS_TOTAL = 'kyverno_admission_requests_total';
const REVIEW_DURATION = 'kyverno_admission_review_duration_seconds';
const POLICY_RESULTS_TOTAL = 'kyverno_policy_results_total';
const POLICY_DURATION = 'kyverno_policy_execution_duration_seconds';

/** What the MutatingPolicy metrics read of one policy evaluation. */
export interface MutatingPolicyResult {
  readonly name: string;
  /** The policy's namespace ('' for a MutatingPolicy). */
  readonly namespace: string;
  readonly background: boolean;
  /** The policy's one rule status: pass, skip, error. */
  readonly status: string;
}

/** What the ValidatingPolicy metrics read of one policy evaluation. */
export interface ValidatingPolicyResult {
  readonly name: string;
  /** A namespaced policy's namespace ('' for a cluster-wide one). */
  readonly namespace?: string;
  /** evaluation.mode: Kubernetes or JSON. */
  readonly mode: string;
  readonly background: boolean;
  readonly rules: readonly Pick<RuleResponse, 'status'>[];
}

export class AdmissionMetrics {
  private readonly logger = new Logger('Metrics');
  readonly registry = new Registry();
  private readonly vocabulary: LabelVocabulary;
  private readonly configuration: MetricsConfiguration;
  /** Per review: its count and answer time by request labels. */
  private readonly requests: TalliedMetrics<RequestLabel>;
  /** Per rule result: its count and its policy's evaluation time by Kyverno's policy result labels. */
  private readonly policies: TalliedMetrics<PolicyResultLabel>;
  /** Per ValidatingPolicy evaluation: its result and evaluation time (kyverno_validating_policy_*). */
  private readonly validatingPolicies: TalliedMetrics<ValidatingPolicyLabel>;
  /** Per ImageValidatingPolicy evaluation (kyverno_image_validating_policy_*). */
  private readonly imageValidatingPolicies: TalliedMetrics<ValidatingPolicyLabel>;
  /** Per MutatingPolicy evaluation (kyverno_mutating_policy_*). */
  private readonly mutatingPolicies: TalliedMetrics<MutatingPolicyLabel>;

  constructor(options: AdmissionMetricsOptions) {
    this.vocabulary = options.vocabulary;
    const configuration = (this.configuration = options.configuration ?? MetricsConfiguration.DEFAULT);
    const bounds = (histogram: string) => configuration.boundariesFor(histogram);
    const capped = (metric: string) => () =>
      this.logger.warn(
        `${metric} reached ${options.maxSeries} label sets (EDICT_METRICS_MAX_SERIES): new ones are counted ` +
          `in its series labelled "overflow" (and in edict_metric_series_overflow_total)`,
      );
    this.requests = new TalliedMetrics(
      REQUEST_LABELS,
      bounds(REVIEW_DURATION),
      options.maxSeries,
      capped(REQUESTS_TOTAL),
    );
    this.policies = new TalliedMetrics(
      POLICY_RESULT_LABELS,
      bounds(POLICY_DURATION),
      options.maxSeries,
      capped(POLICY_RESULTS_TOTAL),
    );
    this.validatingPolicies = new TalliedMetrics(
      VALIDATING_POLICY_LABELS,
      bounds(VALIDATING_POLICY_DURATION),
      options.maxSeries,
      capped(VALIDATING_POLICY_RESULTS_TOTAL),
    );
    this.imageValidatingPolicies = new TalliedMetrics(
      VALIDATING_POLICY_LABELS,
      bounds(IMAGE_VALIDATING_POLICY_DURATION),
      options.maxSeries,
      capped(IMAGE_VALIDATING_POLICY_RESULTS_TOTAL),
    );
    this.mutatingPolicies = new TalliedMetrics(
      MUTATING_POLICY_LABELS,
      bounds(MUTATING_POLICY_DURATION),
      options.maxSeries,
      capped(MUTATING_POLICY_RESULTS_TOTAL),
    );
    collectDefaultMetrics({ register: this.registry });
    this.requests.registerCounter(
      this.registry,
      REQUESTS_TOTAL,
      'can be used to track the number of admission requests encountered by Kyverno in the cluster',
    );
    this.requests.registerHistogram(
      this.registry,
      REVIEW_DURATION,
      'can be used to track the latencies (in seconds) associated with the entire individual admission review.',
    );
    this.policies.registerCounter(
      this.registry,
      POLICY_RESULTS_TOTAL,
      "can be used to track the results associated with the policies applied in the user's cluster, at the level from rule to policy to admission requests",
    );
    this.policies.registerHistogram(
      this.registry,
      POLICY_DURATION,
      'can be used to track the latencies (in seconds) associated with the execution/processing of the individual rules under Kyverno policies whenever they evaluate incoming resource requests (measured per policy evaluation)',
    );
    this.validatingPolicies.registerCounter(
      this.registry,
      VALIDATING_POLICY_RESULTS_TOTAL,
      'Results of the validating policies applied to admission requests.',
    );
    this.validatingPolicies.registerHistogram(
      this.registry,
      VALIDATING_POLICY_DURATION,
      'Time taken to evaluate a validating policy on an admission request.',
    );
    this.imageValidatingPolicies.registerCounter(
      this.registry,
      IMAGE_VALIDATING_POLICY_RESULTS_TOTAL,
      'Results of the image validating policies applied to admission requests.',
    );
    this.imageValidatingPolicies.registerHistogram(
      this.registry,
      IMAGE_VALIDATING_POLICY_DURATION,
      'Time taken to evaluate an image validating policy on an admission request.',
    );
    this.mutatingPolicies.registerCounter(
      this.registry,
      MUTATING_POLICY_RESULTS_TOTAL,
      'Results of the mutating policies applied to admission requests.',
    );
    this.mutatingPolicies.registerHistogram(
      this.registry,
      MUTATING_POLICY_DURATION,
      'Time taken to evaluate a mutating policy on an admission request.',
    );
    const tallies = [
      [REQUESTS_TOTAL, this.requests],
      [POLICY_RESULTS_TOTAL, this.policies],
      [VALIDATING_POLICY_RESULTS_TOTAL, this.validatingPolicies],
      [IMAGE_VALIDATING_POLICY_RESULTS_TOTAL, this.imageValidatingPolicies],
      [MUTATING_POLICY_RESULTS_TOTAL, this.mutatingPolicies],
    ] as const;
    new Counter({
      name: 'edict_metric_series_overflow_total',
      help: 'Observations counted in a metric\'s "overflow" series because it reached its label set cap (with its histogram).',
      labelNames: ['metric'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [metric, tally] of tallies) this.inc({ metric }, tally.overflowed);
      },
    });
  }

  /** The request's kind and namespace as label values: `-` for none, `unknown` when not known. */
  private kindLabel(kind: string): string {
    return this.vocabulary.knowsKind(kind) ? kind : UNKNOWN_LABEL_VALUE;
  }

  private namespaceLabel(namespace: string): string {
    if (!namespace) return '-';
    return this.vocabulary.knowsNamespace(namespace) ? namespace : UNKNOWN_LABEL_VALUE;
  }

  /** One answered review; not counted when the `kyverno-metrics` ConfigMap leaves its namespace out. */
  recordReview(request: RequestFacts, allowed: boolean, seconds: number): void {
    if (!this.configuration.checkNamespace(request.namespace)) return;
    this.requests.observe(
      [
        this.kindLabel(request.kind),
        this.namespaceLabel(request.namespace),
        lowerCase(request.operation),
        allowed ? 'true' : 'false',
      ],
      this.requests.bucketOf(seconds),
      seconds,
    );
  }

  /**
   * One result (and the policy's evaluation time) per rule that applied; not counted when the
   * `kyverno-metrics` ConfigMap leaves the policy's namespace out (Kyverno's check) or the resource's
   * (Edict's too, so that excluding a namespace keeps its values out of every label).
   */
  recordPolicy(response: PolicyResult, background: boolean, request: RequestFacts, seconds: number): void {
    if (!this.configuration.checkNamespace(response.policy.namespace)) return;
    if (!this.configuration.checkNamespace(request.namespace)) return;
    const bucket = this.policies.bucketOf(seconds);
    const policyType = response.policy.kind === 'ClusterPolicy' ? 'cluster' : 'namespaced';
    const backgroundMode = background ? 'true' : 'false';
    const policyNamespace = response.policy.namespace || '-';
    const resourceKind = this.kindLabel(request.kind);
    const resourceNamespace = this.namespaceLabel(request.namespace);
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
          resourceKind,
          resourceNamespace,
          operation,
          rule.name,
          rule.status,
          RULE_TYPE_LABELS[rule.type] ?? EMPTY_RULE_TYPE,
          'admission_request',
          request.dryRun ? 'true' : 'false',
        ],
        bucket,
        seconds,
      );
    }
  }

  /** One ValidatingPolicy evaluation on an admission request: its result and time. */
  recordValidatingPolicy(policy: ValidatingPolicyResult, request: RequestFacts, seconds: number): void {
    this.observeCelPolicy(this.validatingPolicies, policy, request, seconds);
  }

  /** One ImageValidatingPolicy evaluation on an admission request: its result and time. */
  recordImageValidatingPolicy(policy: ValidatingPolicyResult, request: RequestFacts, seconds: number): void {
    this.observeCelPolicy(this.imageValidatingPolicies, policy, request, seconds);
  }

  /** One MutatingPolicy evaluation on an admission request: its result and time. */
  recordMutatingPolicy(policy: MutatingPolicyResult, request: RequestFacts, seconds: number): void {
    this.mutatingPolicies.observe(
      [
        policy.background ? 'true' : 'false',
        policy.name,
        policy.namespace,
        this.kindLabel(request.kind),
        this.namespaceLabel(request.namespace),
        lowerCase(request.operation),
        'admission_request',
        policy.status,
      ],
      this.mutatingPolicies.bucketOf(seconds),
      seconds,
    );
  }

  private observeCelPolicy(
    tally: TalliedMetrics<ValidatingPolicyLabel>,
    policy: ValidatingPolicyResult,
    request: RequestFacts,
    seconds: number,
  ): void {
    tally.observe(
      [
        policy.mode,
        policy.background ? 'true' : 'false',
        policy.name,
        policy.namespace ?? '',
        this.kindLabel(request.kind),
        this.namespaceLabel(request.namespace),
        lowerCase(request.operation),
        'admission_request',
        validatingPolicyStatus(policy.rules),
      ],
      tally.bucketOf(seconds),
      seconds,
    );
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
