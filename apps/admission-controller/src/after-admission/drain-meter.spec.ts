import { describe, expect, it } from 'vitest';
import { DrainMeter, type DrainPart } from './drain-meter';

/** A part whose queue and finished count the spec sets. */
class FakePart implements DrainPart {
  queuedNow = 0;
  finishedSoFar = 0;
  incomingNow = 0;
  constructor(readonly name: string) {}
  queued(): number {
    return this.queuedNow;
  }
  incoming(): number {
    return this.incomingNow;
  }
  finished(): number {
    return this.finishedSoFar;
  }
  /** `count` items finished; `left` still queued. */
  finish(count: number, left: number): void {
    this.finishedSoFar += count;
    this.queuedNow = left;
  }
}

class FakeClock {
  at = 0;
  now(): number {
    return this.at;
  }
}

function meterOf(...parts: FakePart[]) {
  const clock = new FakeClock();
  const meter = new DrainMeter(parts, clock, { sampleIntervalMs: 100, windowMs: 1_000 });
  return { clock, meter };
}

describe('DrainMeter', () => {
  it('estimates pending items over the rate measured while the part had work', () => {
    const audits = new FakePart('audits');
    const { clock, meter } = meterOf(audits);
    audits.queuedNow = 500;
    // No rate yet: nothing to say.
    expect(meter.estimate()).toEqual({
      ms: 0,
      parts: [{ name: 'audits', pending: 500, perSecond: undefined, ms: 0 }],
    });
    clock.at = 100; // first sample: the interval began with work, 20 finished in 100 ms
    audits.finish(20, 480);
    const first = meter.estimate();
    expect(first.parts[0]!.perSecond).toBe(200);
    expect(first.ms).toBe(2_400);
  });

  it('does not count idle intervals as a slow rate', () => {
    const audits = new FakePart('audits');
    audits.queuedNow = 10;
    const { clock, meter } = meterOf(audits);
    clock.at = 100;
    audits.finish(10, 0); // 100/s measured, then idle
    meter.estimate();
    for (let step = 0; step < 20; step++) {
      clock.at += 100;
      meter.estimate();
    }
    audits.queuedNow = 50;
    expect(meter.estimate().parts[0]!.perSecond).toBe(100);
    expect(meter.estimate().ms).toBe(500);
  });

  it('smooths the rate over its window and samples at most every interval', () => {
    const audits = new FakePart('audits');
    const { clock, meter } = meterOf(audits);
    audits.queuedNow = 1_000;
    clock.at = 100;
    audits.finish(10, 990); // 100/s
    expect(meter.estimate().parts[0]!.perSecond).toBe(100);
    clock.at = 150; // under the sample interval: no new sample even though 40 more finished
    audits.finish(40, 950);
    expect(meter.estimate().parts[0]!.perSecond).toBe(100);
    clock.at = 200; // 40 in 100 ms = 400/s, weighted 1 - e^(-0.1)
    const rate = meter.estimate().parts[0]!.perSecond!;
    expect(rate).toBeCloseTo(100 + (1 - Math.exp(-0.1)) * 300, 6);
    expect(rate).toBeGreaterThan(100);
    expect(rate).toBeLessThan(400);
  });

  it('adds the parts up, counting what earlier parts will hand on, and bounds a stalled part', () => {
    const audits = new FakePart('audits');
    const reports = new FakePart('report writes');
    const clock = new FakeClock();
    audits.queuedNow = 100;
    reports.queuedNow = 100;
    const meter = new DrainMeter([audits, reports], clock, { sampleIntervalMs: 100, maxEstimateMs: 60_000 });
    clock.at = 100;
    audits.finish(10, 90); // 100/s
    reports.finish(5, 95); // 50/s
    reports.incomingNow = 90; // each queued audit writes one report
    const estimate = meter.estimate();
    expect(estimate.parts.map((part) => [part.name, part.pending, part.ms])).toEqual([
      ['audits', 90, 900],
      ['report writes', 185, 3_700],
    ]);
    expect(estimate.ms).toBe(4_600);
    clock.at = 200;
    meter.estimate();
    clock.at = 10_000; // reports stalled (API server gone): the rate decays to 0 and the estimate hits its bound
    audits.finish(90, 0);
    reports.incomingNow = 0;
    const stalled = meter.estimate();
    expect(stalled.parts[1]!.perSecond).toBeLessThan(1);
    expect(stalled.ms).toBe(60_000);
  });

  it('refuses settings that would divide by zero', () => {
    expect(() => new DrainMeter([], new FakeClock(), { sampleIntervalMs: 0 })).toThrow(RangeError);
  });
});
