/**
 * Queue depths and drops of the work done after answering, on the reports registry (served with
 * the others on /metrics). Kyverno has no metrics for these queues, so the names carry Edict's
 * prefix.
 */
import { Gauge, type Registry } from 'prom-client';

export interface AfterAdmissionFigures {
  auditQueue: { depth: number; dropped: number };
  updateRequests: {
    depth: number;
    dropped: number;
    skipped: number;
    failed: number;
    done: number;
    beforeAnswer: number;
    late: number;
  };
  events: { pending: number; dropped: number; written: number; failed: number; aggregated: number };
  backpressure: {
    waiting: number;
    held: number;
    releasedAtBound: number;
    heldSeconds: number;
    /** 0 when backpressure is off. */
    targetSeconds: number;
    estimatedDrainSeconds: number;
    parts: Array<{ name: string; seconds: number }>;
  };
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
  gauge(
    'edict_update_requests_before_answer',
    "Triggers' UpdateRequests stored before their review was answered, since start.",
    (f) => f.updateRequests.beforeAnswer,
  );
  gauge(
    'edict_update_requests_late',
    "Triggers' UpdateRequests still being written when their review's deadline made it answer, since start.",
    (f) => f.updateRequests.late,
  );
  gauge('edict_event_queue_depth', 'Distinct events waiting to be written.', (f) => f.events.pending);
  gauge('edict_events_dropped', 'Events dropped by the rate limits, since start.', (f) => f.events.dropped);
  gauge('edict_events_aggregated', 'Events folded into an existing series, since start.', (f) => f.events.aggregated);
  gauge(
    'edict_audit_backpressure_waiting_reviews',
    'Reviews holding their answer now because the after-admission backlog is over its drain target.',
    (f) => f.backpressure.waiting,
  );
  gauge(
    'edict_audit_backpressure_held_reviews',
    'Reviews that held their answer for the after-admission backlog, since start.',
    (f) => f.backpressure.held,
  );
  gauge(
    'edict_audit_backpressure_released_at_bound',
    'Held reviews answered at their bound (half their remaining timeout) with the backlog still over target, since start.',
    (f) => f.backpressure.releasedAtBound,
  );
  gauge(
    'edict_audit_backpressure_held_seconds',
    'Time reviews spent holding their answer for the backlog, all together, since start.',
    (f) => f.backpressure.heldSeconds,
  );
  gauge(
    'edict_audit_backpressure_target_seconds',
    'The backlog drain time above which reviews wait (half of drainTimeoutMs; 0 when backpressure is off).',
    (f) => f.backpressure.targetSeconds,
  );
  gauge(
    'edict_audit_backpressure_estimated_drain_seconds',
    'Time the after-admission backlog would take to finish at the rates measured.',
    (f) => f.backpressure.estimatedDrainSeconds,
  );
  new Gauge({
    name: 'edict_audit_backpressure_part_drain_seconds',
    help: 'The estimated drain time of each after-admission queue (audits, report writes, update requests).',
    labelNames: ['part'],
    registers: [registry],
    collect() {
      for (const part of figures().backpressure.parts) this.set({ part: part.name }, part.seconds);
    },
  });
  gauge('edict_events_written', 'Event writes (creates and series updates), since start.', (f) => f.events.written);
}
