/**
 * Prometheus metrics of the reports controller, with Kyverno's controller metric names
 * (`controller_name="aggregate-report-controller"`, as Kyverno names its aggregation), on a
 * registry of its own so that several controllers in one process do not collide.
 */
import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AggregationOutcome } from '../aggregation/report-aggregator';

const CONTROLLER = 'aggregate-report-controller';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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

  /** Reconciles so far (the e2e check that a follower did nothing). */
  async reconcileCount(): Promise<number> {
    return (await this.reconciles.get()).values.reduce((sum, value) => sum + value.value, 0);
  }
}
