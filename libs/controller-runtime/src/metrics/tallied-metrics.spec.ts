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
    const tally = new TalliedMetrics<'p' | 'q'>(['p', 'q'], BOUNDS);
    tally.registerCounter(tallied, 'c_total', 'h');
    tally.registerHistogram(tallied, 'd_seconds', 'h2');

    for (const [p, q, seconds] of observations) {
      counter.inc({ p, q });
      histogram.observe({ p, q }, seconds);
      tally.observe([p, q], tally.bucketOf(seconds), seconds);
    }
    expect(await tallied.metrics()).toBe(await reference.metrics());
  });

  it('keeps label sets apart whose values would join alike', async () => {
    const registry = new Registry();
    const tally = new TalliedMetrics<'p' | 'q'>(['p', 'q'], BOUNDS);
    tally.registerCounter(registry, 'c_total', 'h');
    tally.observe(['a/b', 'c'], 0, 0.001);
    tally.observe(['a', 'b/c'], 0, 0.001);
    tally.observe(['a', 'b/c'], 0, 0.001);
    const text = await registry.metrics();
    expect(text).toContain('c_total{p="a/b",q="c"} 1');
    expect(text).toContain('c_total{p="a",q="b/c"} 2');
  });

  it('refuses a wrong number of label values', () => {
    const tally = new TalliedMetrics<'p' | 'q'>(['p', 'q'], BOUNDS);
    expect(() => tally.observe(['a'], 0, 0.001)).toThrow(/expected 2 label values, got 1/);
  });

  it('starts again from nothing on reset', async () => {
    const registry = new Registry();
    const tally = new TalliedMetrics<'p'>(['p'], BOUNDS);
    tally.registerCounter(registry, 'c_total', 'h');
    tally.observe(['a'], 0, 0.001);
    registry.resetMetrics();
    tally.observe(['b'], 0, 0.001);
    const text = await registry.metrics();
    expect(text).not.toContain('p="a"');
    expect(text).toContain('c_total{p="b"} 1');
  });

  it('keeps at most maxSeries label sets, folds the rest into one overflow series and says so once', async () => {
    const registry = new Registry();
    let warnings = 0;
    const tally = new TalliedMetrics<'p' | 'q'>(['p', 'q'], BOUNDS, 2, () => (warnings += 1));
    tally.registerCounter(registry, 'c_total', 'h');
    tally.registerHistogram(registry, 'd_seconds', 'h2');
    for (const p of ['a', 'b', 'c', 'd', 'a']) tally.observe([p, 'x'], 0, 0.001);
    const text = await registry.metrics();
    expect(text.split('\n').filter((line) => line.startsWith('c_total{'))).toEqual([
      'c_total{p="a",q="x"} 2',
      'c_total{p="b",q="x"} 1',
      'c_total{p="overflow",q="overflow"} 2',
    ]);
    expect(text).toContain('d_seconds_count{p="overflow",q="overflow"} 2');
    expect(tally.overflowed).toBe(2);
    expect(warnings).toBe(1);
    registry.resetMetrics();
    expect(tally.overflowed).toBe(0);
  });

  it('refuses a cap below one series', () => {
    expect(() => new TalliedMetrics(['p'], BOUNDS, 0)).toThrow(/maxSeries must be at least 1, got 0/);
  });

  it('refuses bucket bounds out of order', () => {
    expect(() => new TalliedMetrics(['p'], [1, 0.5])).toThrow(/ascending/);
  });
});
