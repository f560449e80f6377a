/**
 * Backpressure from the after-admission backlog onto the reviews that add to it. A replica told to
 * stop has `drainTimeoutMs` to finish its audits and write their reports; whatever is still queued
 * then is lost. So while the backlog would take more than a target (about half that drain time) to
 * finish at the measured rate, a review that queued work waits before its answer goes out. The API
 * server's clients then slow down instead of the backlog growing past what a shutdown can drain.
 * The wait is bounded: at most half of what is left of the review's own timeout and at most
 * `maxHoldMs`, so the answer still arrives in time even when the review waited unseen before it
 * reached the handler (a starved event loop); a review released at that bound is counted.
 */
import type { DrainEstimate } from './drain-meter';

/** A clock that can also wait: `performance.now()` and timers in production. */
export interface SleepingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: SleepingClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface BackpressureSettings {
  readonly enabled: boolean;
  /** A backlog estimated to drain within this needs no waiting. */
  readonly targetMs: number;
  /** The longest a review waits, whatever its timeout. */
  readonly maxHoldMs?: number;
  /** How often a waiting review checks the estimate again. */
  readonly checkIntervalMs?: number;
}

export interface BackpressureStats {
  /** Reviews waiting now. */
  waiting: number;
  /** Reviews that waited, since start. */
  held: number;
  /** Of those, reviews released at their bound with the backlog still above the target. */
  releasedAtBound: number;
  /** Time spent waiting, all reviews together, since start. */
  heldMs: number;
}

export class AuditBackpressure {
  private readonly checkIntervalMs: number;
  private readonly maxHoldMs: number;
  private readonly counts: BackpressureStats = { waiting: 0, held: 0, releasedAtBound: 0, heldMs: 0 };

  constructor(
    private readonly estimate: () => DrainEstimate,
    private readonly settings: BackpressureSettings,
    private readonly clock: SleepingClock = SYSTEM_CLOCK,
  ) {
    this.checkIntervalMs = settings.checkIntervalMs ?? 50;
    this.maxHoldMs = settings.maxHoldMs ?? Number.POSITIVE_INFINITY;
    if (!(settings.targetMs > 0) || !(this.checkIntervalMs > 0) || !(this.maxHoldMs > 0))
      throw new RangeError('targetMs, maxHoldMs and checkIntervalMs must be positive');
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get targetMs(): number {
    return this.settings.targetMs;
  }

  /**
   * Waits while the backlog is over the target, for at most half of `remainingMs` (what is left of
   * the review's timeout) and `maxHoldMs`; resolves with the ms waited (0 when off or under the target).
   */
  async hold(remainingMs: number): Promise<number> {
    if (!this.settings.enabled || this.withinTarget()) return 0;
    const started = this.clock.now();
    const bound = Math.max(0, Math.min(remainingMs / 2, this.maxHoldMs));
    this.counts.waiting++;
    this.counts.held++;
    let released = false;
    try {
      for (;;) {
        const waited = this.clock.now() - started;
        if (waited >= bound) break;
        await this.clock.sleep(Math.min(this.checkIntervalMs, bound - waited));
        if (this.withinTarget()) {
          released = true;
          break;
        }
      }
    } finally {
      this.counts.waiting--;
    }
    const waited = this.clock.now() - started;
    this.counts.heldMs += waited;
    if (!released) this.counts.releasedAtBound++;
    return waited;
  }

  stats(): BackpressureStats {
    return { ...this.counts };
  }

  private withinTarget(): boolean {
    return this.estimate().ms <= this.settings.targetMs;
  }
}
