/**
 * Metrics of the report pipeline, on a registry of their own (the app serves it beside its own).
 * The cap uses Kyverno's breaker names (`kyverno_breaker_total`, `kyverno_breaker_drops_total`,
 * label `circuit_name`); Kyverno has no queue metrics, so those carry Edict's prefix.
 */
import { Counter, Gauge, Registry } from 'prom-client';

export const ADMISSION_REPORTS_CIRCUIT = 'admission reports';

export class ReportsMetrics {
  readonly registry = new Registry();
  private depthOf: () => number = () => 0;
  readonly queueDepth: Gauge = new Gauge({
    name: 'edict_admission_report_queue_depth',
    help: 'Admission reports waiting to be written.',
    registers: [this.registry],
    collect: () => this.queueDepth.set(this.depthOf()),
  });
  readonly queueDropped = new Counter({
    name: 'edict_admission_report_queue_dropped_total',
    help: 'Admission reports dropped because the queue was full or shutting down.',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly coalesced = new Counter({
    name: 'edict_admission_reports_coalesced_total',
    help: 'Admission reports merged into one waiting for the same resource (written once for both).',
    registers: [this.registry],
  });
  readonly writes = new Counter({
    name: 'edict_admission_report_writes_total',
    help: 'Admission report writes by outcome (created, merged, unchanged, failed).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly breakerTotal = new Counter({
    name: 'kyverno_breaker_total',
    help: 'Times the breaker was invoked.',
    labelNames: ['circuit_name'],
    registers: [this.registry],
  });
  readonly breakerDrops = new Counter({
    name: 'kyverno_breaker_drops_total',
    help: 'Times the breaker was open and the write was dropped.',
    labelNames: ['circuit_name'],
    registers: [this.registry],
  });

  /** Where the depth gauge reads from at scrape time. */
  trackDepth(depthOf: () => number): void {
    this.depthOf = depthOf;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
