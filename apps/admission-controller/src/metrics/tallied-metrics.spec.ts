import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedMetrics } from './tallied-metrics';

const BOUNDS = [0.005, 0.01, 0.1, 1];
const observations: [string, string, number][] = [
  ['a', 'x', 0.001],
  ['a', 'x', 0.005], // on a bound: in that bucket, as prom-client counts it
  ['a', 'y', 0.05],
  ['b', 'x', 3],
  ['a', 'x', 0.2],
];

describe('TalliedMetrics', () => {
  it("renders exactly what prom-client's own counter and histogram render for the same observations", async () => {
    const reference = new Registry();
    const counter = new Counter({ name: 'c_total', help: 'h', labelNames: ['p', 'q'], registers: [reference] });
    const histogram = new Histogram({
      name: 'd_seconds',
      help: 'h2',
      labelNames: ['p', 'q'],
      buckets: BOUNDS,
      registers: [reference],
    });
    const tallied = new Registry();
    const tally = new TalliedMetrics<'p' | 'q'>(BOUNDS);
    tally.registerCounter(tallied, 'c_total', 'h');
    tally.registerHistogram(tallied, 'd_seconds', 'h2');

    for (const [p, q, seconds] of observations) {
      counter.inc({ p, q });
      histogram.observe({ p, q }, seconds);
      tally.observe(`${p}/${q}`, () => ({ p, q }), tally.bucketOf(seconds), seconds);
    }
    expect(await tallied.metrics()).toBe(await reference.metrics());
  });

  it('builds the labels of a key once', () => {
    const tally = new TalliedMetrics<'p'>(BOUNDS);
    let built = 0;
    for (let i = 0; i < 3; i += 1) tally.observe('k', () => ((built += 1), { p: 'v' }), 0, 0.001);
    expect(built).toBe(1);
  });

  it('refuses bucket bounds out of order', () => {
    expect(() => new TalliedMetrics([1, 0.5])).toThrow(/ascending/);
  });
});
