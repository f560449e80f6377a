import { describe, expect, it } from 'vitest';
import { AuditBackpressure, type SleepingClock } from './audit-backpressure';
import type { DrainEstimate } from './drain-meter';

/** Time moves only when the spec says; sleepers wake when it passes their time. */
class FakeClock implements SleepingClock {
  at = 0;
  private sleepers: Array<{ until: number; wake: () => void }> = [];
  now(): number {
    return this.at;
  }
  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ until: this.at + ms, wake }));
  }
  /** Moves time forward in steps of `stepMs`, letting woken sleepers run between steps. */
  async advance(totalMs: number, stepMs = 10): Promise<void> {
    for (let moved = 0; moved < totalMs; moved += stepMs) {
      this.at += stepMs;
      const due = this.sleepers.filter((sleeper) => sleeper.until <= this.at);
      this.sleepers = this.sleepers.filter((sleeper) => sleeper.until > this.at);
      for (const sleeper of due) sleeper.wake();
      for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    }
  }
}

function setUp(enabled = true) {
  const clock = new FakeClock();
  const backlog = { ms: 0 };
  const estimate = (): DrainEstimate => ({ ms: backlog.ms, parts: [] });
  const backpressure = new AuditBackpressure(estimate, { enabled, targetMs: 7_500, checkIntervalMs: 50 }, clock);
  return { clock, backlog, backpressure };
}

describe('AuditBackpressure', () => {
  it('lets a review through at once while the backlog drains within the target', async () => {
    const { backlog, backpressure } = setUp();
    backlog.ms = 7_500;
    expect(await backpressure.hold(10_000)).toBe(0);
    expect(backpressure.stats()).toEqual({ waiting: 0, held: 0, releasedAtBound: 0, heldMs: 0 });
  });

  it('holds a review while the backlog is over the target and releases it once it is back under', async () => {
    const { clock, backlog, backpressure } = setUp();
    backlog.ms = 9_000;
    let waited: number | undefined;
    void backpressure.hold(10_000).then((ms) => (waited = ms));
    await clock.advance(1_000);
    expect(waited).toBeUndefined();
    expect(backpressure.stats().waiting).toBe(1);
    backlog.ms = 7_000;
    await clock.advance(100);
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(waited).toBeLessThanOrEqual(1_100);
    expect(backpressure.stats()).toMatchObject({ waiting: 0, held: 1, releasedAtBound: 0 });
  });

  it('never holds longer than half of the time left before the review times out', async () => {
    const { clock, backlog, backpressure } = setUp();
    backlog.ms = 60_000;
    const waits: number[] = [];
    void backpressure.hold(10_000).then((ms) => waits.push(ms));
    void backpressure.hold(3_000).then((ms) => waits.push(ms));
    await clock.advance(2_000);
    expect(backpressure.stats().waiting).toBe(1);
    await clock.advance(4_000);
    expect(waits).toEqual([1_500, 5_000]);
    expect(backpressure.stats()).toEqual({ waiting: 0, held: 2, releasedAtBound: 2, heldMs: 6_500 });
  });

  it('never holds longer than its own bound either', async () => {
    const clock = new FakeClock();
    const backpressure = new AuditBackpressure(
      () => ({ ms: 60_000, parts: [] }),
      { enabled: true, targetMs: 7_500, maxHoldMs: 2_500 },
      clock,
    );
    let waited: number | undefined;
    void backpressure.hold(10_000).then((ms) => (waited = ms));
    await clock.advance(3_000);
    expect(waited).toBe(2_500);
  });

  it('holds nothing when turned off', async () => {
    const { backlog, backpressure } = setUp(false);
    backlog.ms = 60_000;
    expect(await backpressure.hold(10_000)).toBe(0);
    expect(backpressure.stats().held).toBe(0);
  });

  it('refuses a target that is not positive', () => {
    expect(() => new AuditBackpressure(() => ({ ms: 0, parts: [] }), { enabled: true, targetMs: 0 })).toThrow(
      RangeError,
    );
  });
});
