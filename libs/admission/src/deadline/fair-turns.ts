import type { EvaluationDeadline } from '@edict/foundation';

/** How long an evaluation holds the thread before it gives way (at its next yield point). */
export const DEFAULT_TURN_MS = 10;

/**
 * Turns on one thread for CPU-bound evaluations, fair between tenants (a review's namespace). An
 * evaluation that has held the thread for a turn gives way at the engine's next yield point
 * (between rules and foreach elements) and resumes when its tenant's turn comes: one turn per
 * event-loop round, the waiting tenants served in rotation. Between turns the event loop runs, so
 * health checks and new reviews are read and a short review from another tenant finishes within a
 * turn or two, however long a tenant's slow policy runs (its deadline still ends it).
 */
export class FairTurns {
  /** Waiting evaluations per tenant; the map's order is the rotation (a served tenant goes last). */
  private readonly waiting = new Map<string, Array<() => void>>();
  private scheduled = false;

  constructor(private readonly turnMs = DEFAULT_TURN_MS) {}

  /** A deadline at `at` (a performance.now() timestamp) whose evaluation takes turns as `tenant`. */
  deadline(at: number, tenant: string): EvaluationDeadline {
    let turnStarted = performance.now();
    return {
      expired: () => performance.now() >= at,
      remainingMs: () => at - performance.now(),
      yieldTurn: () => {
        if (performance.now() - turnStarted < this.turnMs) return undefined;
        return this.nextTurn(tenant).then(() => {
          turnStarted = performance.now();
        });
      },
    };
  }

  /**
   * Turns without an end, for the audits after the answer: they have no deadline (their results
   * and UpdateRequests must not be cut short) but must not hold the thread either.
   */
  turnsOnly(tenant: string): EvaluationDeadline {
    return this.deadline(Number.POSITIVE_INFINITY, tenant);
  }

  /** Evaluations waiting for their turn. */
  waitingCount(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private nextTurn(tenant: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(resolve);
      else this.waiting.set(tenant, [resolve]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate: after the I/O of this round (requests, health checks), not before it.
    setImmediate(() => this.grant());
  }

  /** One turn: the oldest evaluation of the next tenant in rotation. */
  private grant(): void {
    this.scheduled = false;
    const next = this.waiting.entries().next();
    if (next.done) return;
    const [tenant, queue] = next.value;
    const resume = queue.shift()!;
    this.waiting.delete(tenant);
    if (queue.length > 0) this.waiting.set(tenant, queue);
    resume();
    if (this.waiting.size > 0) this.schedule();
  }
}
