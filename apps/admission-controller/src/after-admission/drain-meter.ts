/**
 * How long the after-admission backlog would take to drain now: per part (audits, report writes,
 * UpdateRequests), the items still to do divided by the rate that part was measured finishing
 * items while it had work. The parts add up rather than overlap: they share the one event loop, so
 * a drain runs them one after another as far as CPU goes. Rates are sampled lazily (at most every
 * `sampleIntervalMs`, when an estimate is asked for) and smoothed over about `windowMs`, on an
 * injected clock so the arithmetic is testable without waiting.
 */

/** Time in ms from an arbitrary origin; `performance.now()` in production. */
export interface MonotonicClock {
  now(): number;
}

export interface DrainPart {
  /** Named in metrics and in the shutdown log. */
  readonly name: string;
  /** Items queued or in progress in this part now. */
  queued(): number;
  /** Items the part will still receive from the parts before it (each queued audit writes one report). */
  incoming?(): number;
  /** Items finished since start, done or failed: only ever grows. */
  finished(): number;
}

export interface PartEstimate {
  readonly name: string;
  /** Items still to do: queued and incoming. */
  readonly pending: number;
  /** Items finished per second while busy; undefined until measured. */
  readonly perSecond: number | undefined;
  /** 0 with nothing pending or no rate measured yet. */
  readonly ms: number;
}

export interface DrainEstimate {
  readonly ms: number;
  readonly parts: readonly PartEstimate[];
}

export interface DrainMeterOptions {
  readonly sampleIntervalMs?: number;
  readonly windowMs?: number;
  /** An estimate never exceeds this (a stalled part has a rate of 0). */
  readonly maxEstimateMs?: number;
}

interface PartState {
  sampledAt: number;
  finished: number;
  queued: number;
  perSecond: number | undefined;
}

export class DrainMeter {
  private readonly states: PartState[];
  private readonly sampleIntervalMs: number;
  private readonly windowMs: number;
  private readonly maxEstimateMs: number;

  constructor(
    private readonly parts: readonly DrainPart[],
    private readonly clock: MonotonicClock,
    options: DrainMeterOptions = {},
  ) {
    this.sampleIntervalMs = options.sampleIntervalMs ?? 250;
    this.windowMs = options.windowMs ?? 2_000;
    this.maxEstimateMs = options.maxEstimateMs ?? 3_600_000;
    if (!(this.sampleIntervalMs > 0) || !(this.windowMs > 0) || !(this.maxEstimateMs > 0))
      throw new RangeError('sampleIntervalMs, windowMs and maxEstimateMs must be positive');
    const now = clock.now();
    this.states = parts.map((part) => ({
      sampledAt: now,
      finished: part.finished(),
      queued: part.queued(),
      perSecond: undefined,
    }));
  }

  estimate(): DrainEstimate {
    this.sample();
    let total = 0;
    const parts = this.parts.map((part, index): PartEstimate => {
      const perSecond = this.states[index]!.perSecond;
      const pending = part.queued() + (part.incoming?.() ?? 0);
      let ms = 0;
      if (pending > 0 && perSecond !== undefined)
        ms = perSecond > 0 ? Math.min(this.maxEstimateMs, (pending / perSecond) * 1000) : this.maxEstimateMs;
      total += ms;
      return { name: part.name, pending, perSecond, ms };
    });
    return { ms: Math.min(this.maxEstimateMs, total), parts };
  }

  private sample(): void {
    const now = this.clock.now();
    this.parts.forEach((part, index) => {
      const state = this.states[index]!;
      const elapsed = now - state.sampledAt;
      if (elapsed < this.sampleIntervalMs) return;
      const finished = part.finished();
      const queued = part.queued();
      // Only intervals with work at either end measure the rate: an idle part finishes what arrives, not what it can.
      if (state.queued > 0 || queued > 0) {
        const measured = ((finished - state.finished) * 1000) / elapsed;
        const weight = 1 - Math.exp(-elapsed / this.windowMs);
        state.perSecond =
          state.perSecond === undefined ? measured : state.perSecond + weight * (measured - state.perSecond);
      }
      state.sampledAt = now;
      state.finished = finished;
      state.queued = queued;
    });
  }
}
