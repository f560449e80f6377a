import { describe, expect, it } from 'vitest';
import { FakeReportCounter } from '../testing';
import { ReportBreaker } from './report-breaker';

describe('ReportBreaker', () => {
  it("allows up to and at the cap, drops above it (Kyverno's count > max)", () => {
    const counter = new FakeReportCounter({ count: 10, running: true });
    const events: string[] = [];
    const breaker = new ReportBreaker(counter, 10, {
      onInvoke: () => events.push('invoke'),
      onDrop: () => events.push('drop'),
    });
    expect(breaker.allow()).toBe(true);
    counter.value = { count: 11, running: true };
    expect(breaker.allow()).toBe(false);
    expect(events).toEqual(['invoke', 'invoke', 'drop']);
  });

  it('drops while the count is unknown', () => {
    const breaker = new ReportBreaker(new FakeReportCounter({ count: 0, running: false }), 100);
    expect(breaker.allow()).toBe(false);
  });
});
