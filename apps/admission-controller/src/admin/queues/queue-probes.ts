/**
 * The seam for queues other than the two the admin endpoint knows (the review limiter and the
 * audit report queue): provide `ADMIN_QUEUE_PROBES` with a list of probes (events, update
 * requests, ...) and `GET /admin/queues` lists them under `others`.
 *
 *   { provide: ADMIN_QUEUE_PROBES, inject: [EventRecorder], useFactory: (events) => [
 *       { name: 'events', depth: () => ({ depth: events.pending(), capacity: 1000 }) },
 *   ] }
 */
export interface QueueDepth {
  /** Items waiting. */
  readonly depth: number;
  /** Items being worked on now. */
  readonly active?: number;
  /** Most items that may wait. */
  readonly capacity?: number;
  /** Items dropped since start (queue full or stopping). */
  readonly dropped?: number;
}

export interface QueueProbe {
  readonly name: string;
  depth(): QueueDepth;
}

export const ADMIN_QUEUE_PROBES = Symbol('ADMIN_QUEUE_PROBES');
