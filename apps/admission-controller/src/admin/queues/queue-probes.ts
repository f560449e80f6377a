/**
 * The seam for queues beyond the ones `GET /admin/queues` reads itself (the review limiter, the
 * audit report queue and the after-admission queues): provide `ADMIN_QUEUE_PROBES` with a list of
 * probes and the endpoint lists them under `others`:
 *
 *   { provide: ADMIN_QUEUE_PROBES, inject: [SomeQueue], useFactory: (queue: SomeQueue) => [
 *       { name: 'some-queue', depth: () => ({ depth: queue.size(), capacity: 1000 }) },
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
