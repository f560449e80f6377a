/**
 * Prometheus metrics of the reports controller, with Kyverno's names where Kyverno has them: the
 * controller metrics (`controller_name` `aggregate-report-controller` and
 * `background-scan-controller`, as Kyverno names them), the policy results of background scans
 * (`kyverno_policy_results_total`, execution cause `background_scan`) and the background reports
 * cap (`kyverno_breaker_*`); on a registry of its own so that several controllers in one process
 * do not collide.
 */
import { Injectable, Optional } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type {
  CompiledImageValidatingPolicy,
  CompiledMutatingPolicy,
  CompiledValidatingPolicy,
  MutatingPolicyResult,
} from '@edict/cel-policies';
import type { PolicyResponse } from '@edict/engine';
import {
  MetricsConfiguration,
  POLICY_RESULT_LABELS,
  IMAGE_VALIDATING_POLICY_DURATION,
  IMAGE_VALIDATING_POLICY_RESULTS_TOTAL,
  MUTATING_POLICY_DURATION,
  MUTATING_POLICY_LABELS,
  MUTATING_POLICY_RESULTS_TOTAL,
  type MutatingPolicyLabel,
  VALIDATING_POLICY_DURATION,
  VALIDATING_POLICY_LABELS,
  VALIDATING_POLICY_RESULTS_TOTAL,
  type ValidatingPolicyLabel,
  validatingPolicyStatus,
} from '@edict/controller-runtime';
import type { CachedPolicy } from '@edict/policy';
import type { BreakerListener } from '@edict/reports';
import type { AggregationOutcome } from '../aggregation/report-aggregator';
import type { ScanOutcome } from '../background-scans/resource-scanner';

const CONTROLLER = 'aggregate-report-controller';
const BACKGROUND_CONTROLLER = 'background-scan-controller';
const BACKGROUND_REPORTS_CIRCUIT = 'background reports';

@Injectable()
export class ReportsControllerMetrics {
  readonly registry = new Registry();
  private readonly reconciles = new Counter({
    name: 'kyverno_controller_reconcile_total',
    help: 'Resources whose reports were merged.',
    labelNames: ['controller_name'],
    registers: [this.registry],
  });
  private readonly requeues = new Counter({
    name: 'kyverno_controller_requeue_total',
    help: 'Resources put back in the queue to be merged again after an error.',
    labelNames: ['controller_name', 'num_requeues'],
    registers: [this.registry],
  });
  private readonly drops = new Counter({
    name: 'kyverno_controller_drop_total',
    help: 'Resources given up after their retries (until their reports change again).',
    labelNames: ['controller_name'],
    registers: [this.registry],
  });
  private readonly reportWrites = new Counter({
    name: 'edict_policy_report_writes_total',
    help: 'PolicyReport and ClusterPolicyReport writes, by operation (created, updated, deleted).',
    labelNames: ['operation'],
    registers: [this.registry],
  });
  private readonly merges = new Counter({
    name: 'edict_admission_reports_merged_total',
    help: 'Admission reports merged into PolicyReports (or dropped with their resource) and deleted.',
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'edict_aggregation_queue_depth',
    help: 'Resources waiting for their reports to be merged, or being merged.',
    registers: [this.registry],
  });

  private readonly scans = new Counter({
    name: 'edict_background_scans_total',
    help: 'Resources looked at by background scans, by outcome (evaluated, unchanged, no-policies, capped, failed).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly policyResultCount = new Counter({
    name: 'kyverno_policy_results_total',
    help: 'Rule results of background scans.',
    labelNames: POLICY_RESULT_LABELS,
    registers: [this.registry],
  });
  private readonly validatingPolicyResultCount = new Counter({
    name: VALIDATING_POLICY_RESULTS_TOTAL,
    help: 'Results of the validating policies background scans applied.',
    labelNames: VALIDATING_POLICY_LABELS,
    registers: [this.registry],
  });
  private readonly validatingPolicyDuration: Histogram<ValidatingPolicyLabel>;
  private readonly imageValidatingPolicyResultCount = new Counter({
    name: IMAGE_VALIDATING_POLICY_RESULTS_TOTAL,
    help: 'Results of the image validating policies background scans applied.',
    labelNames: VALIDATING_POLICY_LABELS,
    registers: [this.registry],
  });
  private readonly imageValidatingPolicyDuration: Histogram<ValidatingPolicyLabel>;
  private readonly mutatingPolicyResultCount = new Counter({
    name: MUTATING_POLICY_RESULTS_TOTAL,
    help: 'Results of the mutating policies background scans applied.',
    labelNames: MUTATING_POLICY_LABELS,
    registers: [this.registry],
  });
  private readonly mutatingPolicyDuration: Histogram<MutatingPolicyLabel>;
  private readonly breakerTotal = new Counter({
    name: 'kyverno_breaker_total',
    help: 'Times the background reports cap was asked.',
    labelNames: ['circuit_name'],
    registers: [this.registry],
  });
  private readonly breakerDrops = new Counter({
    name: 'kyverno_breaker_drops_total',
    help: 'Background reports not written because too many intermediate reports existed.',
    labelNames: ['circuit_name'],
    registers: [this.registry],
  });
  readonly backgroundQueueDepth = new Gauge({
    name: 'edict_background_scan_queue_depth',
    help: 'Type passes and changed resources waiting for a background scan, or being scanned.',
    registers: [this.registry],
  });
  readonly watchedTypes = new Gauge({
    name: 'edict_background_scan_watched_types',
    help: 'Resource types the background policies name, watched by the background scan.',
    registers: [this.registry],
  });

  /** `configuration`: the `kyverno-metrics` ConfigMap (histogram boundaries, namespaces counted). */
  constructor(@Optional() private readonly configuration: MetricsConfiguration = MetricsConfiguration.DEFAULT) {
    this.validatingPolicyDuration = new Histogram({
      name: VALIDATING_POLICY_DURATION,
      help: 'Time taken to evaluate a validating policy in a background scan.',
      labelNames: VALIDATING_POLICY_LABELS,
      buckets: [...configuration.boundariesFor(VALIDATING_POLICY_DURATION)],
      registers: [this.registry],
    });
    this.imageValidatingPolicyDuration = new Histogram({
      name: IMAGE_VALIDATING_POLICY_DURATION,
      help: 'Time taken to evaluate an image validating policy in a background scan.',
      labelNames: VALIDATING_POLICY_LABELS,
      buckets: [...configuration.boundariesFor(IMAGE_VALIDATING_POLICY_DURATION)],
      registers: [this.registry],
    });
    this.mutatingPolicyDuration = new Histogram({
      name: MUTATING_POLICY_DURATION,
      help: 'Time taken to evaluate a mutating policy in a background scan.',
      labelNames: MUTATING_POLICY_LABELS,
      buckets: [...configuration.boundariesFor(MUTATING_POLICY_DURATION)],
      registers: [this.registry],
    });
    collectDefaultMetrics({ register: this.registry });
  }

  backgroundScanned(outcome: ScanOutcome | 'failed'): void {
    this.reconciles.inc({ controller_name: BACKGROUND_CONTROLLER });
    this.scans.inc({ outcome });
  }

  /** Resources background scans looked at so far with this outcome (the e2e check that unchanged ones are not evaluated). */
  async scanCount(outcome: ScanOutcome): Promise<number> {
    return (await this.scans.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  }

  /** One ValidatingPolicy evaluated by a background scan: its result and time. */
  validatingPolicyResult(compiled: CompiledValidatingPolicy, response: PolicyResponse, seconds: number): void {
    const labels = this.celPolicyLabels(compiled, response);
    this.validatingPolicyResultCount.inc(labels);
    this.validatingPolicyDuration.observe(labels, seconds);
  }

  imageValidatingPolicyResult(
    compiled: CompiledImageValidatingPolicy,
    response: PolicyResponse,
    seconds: number,
  ): void {
    const labels = this.celPolicyLabels(compiled, response);
    this.imageValidatingPolicyResultCount.inc(labels);
    this.imageValidatingPolicyDuration.observe(labels, seconds);
  }

  /**
   * One MutatingPolicy evaluated by a background scan: the engine's result (Kyverno's metric wraps
   * the engine, so an object still to mutate counts as the engine's pass) and time.
   */
  mutatingPolicyResult(compiled: CompiledMutatingPolicy, result: MutatingPolicyResult, seconds: number): void {
    const labels: Record<MutatingPolicyLabel, string> = {
      policy_background_mode: String(compiled.background),
      policy_name: compiled.name,
      policy_namespace: compiled.namespace ?? '',
      resource_kind: result.response.resource.kind,
      resource_namespace: result.response.resource.namespace || '-',
      resource_request_operation: 'create',
      execution_cause: 'background_scan',
      result: result.status,
    };
    this.mutatingPolicyResultCount.inc(labels);
    this.mutatingPolicyDuration.observe(labels, seconds);
  }

  private celPolicyLabels(
    compiled: Pick<CompiledValidatingPolicy, 'mode' | 'background' | 'name' | 'namespace'>,
    response: PolicyResponse,
  ): Record<ValidatingPolicyLabel, string> {
    return {
      policy_validation_mode: compiled.mode,
      policy_background_mode: String(compiled.background),
      policy_name: compiled.name,
      policy_namespace: compiled.namespace ?? '',
      resource_kind: response.resource.kind,
      resource_namespace: response.resource.namespace || '-',
      resource_request_operation: '',
      execution_cause: 'background_scan',
      result: validatingPolicyStatus(response.rules),
    };
  }

  /** A background scan's rule results; not counted when the ConfigMap leaves the policy's or the resource's namespace out. */
  policyResults(policy: CachedPolicy, response: PolicyResponse): void {
    if (!this.configuration.checkNamespace(policy.namespace)) return;
    if (!this.configuration.checkNamespace(response.resource.namespace)) return;
    for (const rule of response.rules) {
      this.policyResultCount.inc({
        policy_validation_mode: (rule.failureAction ?? response.validationFailureAction).toLowerCase(),
        policy_type: policy.namespace ? 'namespaced' : 'cluster',
        policy_background_mode: 'true',
        policy_name: policy.name,
        policy_namespace: policy.namespace ?? '-',
        resource_kind: response.resource.kind,
        resource_namespace: response.resource.namespace || '-',
        resource_request_operation: '',
        rule_name: rule.name,
        rule_result: rule.status,
        rule_type: 'validate',
        rule_execution_cause: 'background_scan',
        dry_run: 'false',
      });
    }
  }

  breakerListener(): BreakerListener {
    const labels = { circuit_name: BACKGROUND_REPORTS_CIRCUIT };
    return { onInvoke: () => this.breakerTotal.inc(labels), onDrop: () => this.breakerDrops.inc(labels) };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  reconciled(outcome: AggregationOutcome): void {
    this.reconciles.inc({ controller_name: CONTROLLER });
    if (outcome.report === 'created' || outcome.report === 'updated' || outcome.report === 'deleted')
      this.reportWrites.inc({ operation: outcome.report });
    if (outcome.merged > 0) this.merges.inc(outcome.merged);
  }

  requeued(attempt: number): void {
    this.requeues.inc({ controller_name: CONTROLLER, num_requeues: String(attempt) });
  }

  dropped(): void {
    this.drops.inc({ controller_name: CONTROLLER });
  }

  /** Aggregation reconciles so far (the e2e check that a follower did nothing). */
  async reconcileCount(): Promise<number> {
    return (await this.reconciles.get()).values
      .filter((value) => value.labels.controller_name === CONTROLLER)
      .reduce((sum, value) => sum + value.value, 0);
  }
}
