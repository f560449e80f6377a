/**
 * Prometheus metrics of the background controller, on a registry of its own so that several
 * controllers in one process do not collide. Kyverno's controller counters keep its names, types
 * and labels (`controller_name="background"`, as Kyverno names its UpdateRequest queue;
 * `num_requeues`, the item's requeues so far); what Kyverno has no metric for carries `edict_`.
 */
import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

const CONTROLLER = 'background';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
