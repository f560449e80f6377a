/**
 * Prometheus metrics of the background controller, on a registry of its own so that several
 * controllers in one process do not collide. Kyverno's controller counters keep its names, types
 * and labels (`controller_name="background"`, as Kyverno names its UpdateRequest queue;
 * `num_requeues`, the item's requeues so far); what Kyverno has no metric for carries `edict_`.
 */
import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DEFAULT_BUCKET_BOUNDARIES } from '@edict/controller-runtime';

const CONTROLLER = 'background';
const GENERATING_LABELS = [
  'policy_name',
  'resource_kind',
  'resource_namespace',
  'resource_request_operation',
  'result',
] as const;

@Injectable()
export class BackgroundMetrics {
  readonly registry = new Registry();
  private readonly reconciles = new Counter({
    name: 'kyverno_controller_reconcile_total',
    help: 'Reconciliations: UpdateRequests taken from the queue and handled.',
    labelNames: ['controller_name'],
    registers: [this.registry],
  });
  private readonly requeues = new Counter({
    name: 'kyverno_controller_requeue_total',
    help: 'UpdateRequests put back in the queue to be retried, by requeues so far.',
    labelNames: ['controller_name', 'num_requeues'],
    registers: [this.registry],
  });
  private readonly drops = new Counter({
    name: 'kyverno_controller_drop_total',
    help: 'UpdateRequests dropped from the queue after their retries.',
    labelNames: ['controller_name'],
    registers: [this.registry],
  });
  private readonly outcomes = new Counter({
    name: 'edict_update_requests_processed_total',
    help: 'UpdateRequest attempts, by outcome (completed, failed).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'edict_background_queue_depth',
    help: 'UpdateRequests waiting or being processed by this controller.',
    registers: [this.registry],
  });

  /** Kyverno's GeneratingPolicy metrics (pkg/metrics generating.go), one observation per evaluation. */
  private readonly generatingDuration = new Histogram({
    name: 'kyverno_generating_policy_execution_duration_seconds',
    help: 'can be used to track the latencies (in seconds) associated with the execution/processing of individual generating policies when they evaluate incoming resource requests.',
    labelNames: GENERATING_LABELS,
    buckets: [...DEFAULT_BUCKET_BOUNDARIES],
    registers: [this.registry],
  });
  private readonly generatingResults = new Counter({
    name: 'kyverno_generating_policy_results_total',
    help: "can be used to track the results associated with the generating policies applied in the user's cluster, at the level from rule to policy to admission requests.",
    labelNames: GENERATING_LABELS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One GeneratingPolicy evaluation on a trigger: its result (pass, skip, error) and time. */
  generatingPolicyResult(
    policyName: string,
    trigger: { kind?: string; namespace?: string },
    operation: string,
    result: string,
    seconds: number,
  ): void {
    const labels = {
      policy_name: policyName,
      resource_kind: trigger.kind ?? '',
      resource_namespace: trigger.namespace ?? '',
      resource_request_operation: operation.toLowerCase(),
      result,
    };
    this.generatingResults.inc(labels);
    this.generatingDuration.observe(labels, seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  reconciled(): void {
    this.reconciles.inc({ controller_name: CONTROLLER });
  }

  requeued(attempt: number): void {
    this.requeues.inc({ controller_name: CONTROLLER, num_requeues: String(attempt) });
  }

  dropped(): void {
    this.drops.inc({ controller_name: CONTROLLER });
  }

  processed(outcome: 'completed' | 'failed'): void {
    this.outcomes.inc({ outcome });
  }

  /** UpdateRequest attempts so far (tests, and the e2e check that a follower did nothing). */
  async processedCount(): Promise<number> {
    const values = (await this.outcomes.get()).values;
    return values.reduce((sum, value) => sum + value.value, 0);
  }
}
