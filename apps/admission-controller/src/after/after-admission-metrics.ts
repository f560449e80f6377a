/**
 * Queue depths and drops of the work done after answering, on the reports registry (served with
 * the others on /metrics). Kyverno has no metrics for these queues, so the names carry Edict's
 * prefix.
 */
import { Gauge, type Registry } from 'prom-client';

export interface AfterAdmissionFigures {
  auditQueue: { depth: number; dropped: number };
  updateRequests: { depth: number; dropped: number; skipped: number; failed: number; done: number };
  events: { pending: number; dropped: number; written: number; failed: number; aggregated: number };
}

/** Gauges read at scrape time from `figures()` (counters kept by the queues themselves). */
export function registerAfterAdmissionMetrics(registry: Registry, figures: () => AfterAdmissionFigures): void {
  const gauge = (name: string, help: string, read: (f: AfterAdmissionFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(figures()));
      },
    });
  gauge('edict_audit_queue_depth', 'Admitted requests waiting for their audit evaluation.', (f) => f.auditQueue.depth);
  gauge(
    'edict_audit_queue_dropped',
    'Admitted requests whose audit work was dropped (queue full or shutting down), since start.',
    (f) => f.auditQueue.dropped,
  );
  gauge('edict_update_request_queue_depth', 'UpdateRequests waiting to be created.', (f) => f.updateRequests.depth);
  gauge(
    'edict_update_request_queue_dropped',
    'UpdateRequests dropped (queue full or shutting down), since start.',
    (f) => f.updateRequests.dropped,
  );
  gauge(
    'edict_update_requests_skipped',
    'UpdateRequests not created because updateRequestThreshold was reached, since start.',
    (f) => f.updateRequests.skipped,
  );
  gauge(
    'edict_update_requests_failed',
    'UpdateRequests not created after retries, since start.',
    (f) => f.updateRequests.failed,
  );
  gauge('edict_event_queue_depth', 'Distinct events waiting to be written.', (f) => f.events.pending);
  gauge('edict_events_dropped', 'Events dropped by the rate limits, since start.', (f) => f.events.dropped);
  gauge('edict_events_aggregated', 'Events folded into an existing series, since start.', (f) => f.events.aggregated);
  gauge('edict_events_written', 'Event writes (creates and series updates), since start.', (f) => f.events.written);
}
