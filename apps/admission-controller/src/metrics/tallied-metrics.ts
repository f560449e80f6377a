/**
 * A counter and a histogram over the same label sets, counted in plain numbers and rendered in
 * Prometheus' text format only when scraped. prom-client sorts and joins every label on every
 * `inc`/`observe` (its children too); admission records one result per rule of every policy of
 * every review, so the hot path here is one string key and a Map lookup, and the label objects are
 * built once per label set.
 */
import type { Metric, Registry } from 'prom-client';

/** The counts of one label set. */
export interface TalliedSeries<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly buckets: number[];
}

/** What prom-client's registry reads of a metric when it renders (`get`), plus `reset`. */
interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
  }>;
  reset(): void;
}

export class TalliedMetrics<L extends string> {
  private readonly series = new Map<string, TalliedSeries<L>>();

  /** `bounds`: the histogram's bucket upper bounds in seconds, ascending. */
  constructor(private readonly bounds: readonly number[]) {
    for (let index = 1; index < bounds.length; index += 1)
      if (!(bounds[index]! > bounds[index - 1]!)) throw new RangeError('bucket bounds must be ascending');
  }

  /** The bucket an observation falls in (computed once when several series observe one value). */
  bucketOf(seconds: number): number {
    let index = 0;
    while (index < this.bounds.length && seconds > this.bounds[index]!) index += 1;
    return index;
  }

  /**
   * Counts one observation of `seconds` (in `bucket`, from `bucketOf`) for the label set `key`
   * stands for; `labels` is called only the first time a key is seen.
   */
  observe(key: string, labels: () => Record<L, string>, bucket: number, seconds: number): void {
    let series = this.series.get(key);
    if (!series) {
      series = { labels: labels(), count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    series.buckets[bucket]! += 1;
  }

  /** Registers the counter (observations per label set) under `name`. */
  registerCounter(registry: Registry, name: string, help: string): void {
    this.register(registry, name, help, 'counter', () =>
      [...this.series.values()].map((series) => ({ labels: series.labels, value: series.count })),
    );
  }

  /** Registers the histogram (buckets, sum and count per label set) under `name`. */
  registerHistogram(registry: Registry, name: string, help: string): void {
    this.register(registry, name, help, 'histogram', () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const series of this.series.values()) {
        let cumulative = 0;
        this.bounds.forEach((bound, index) => {
          cumulative += series.buckets[index]!;
          values.push({ metricName: `${name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count });
        values.push({ metricName: `${name}_sum`, labels: series.labels, value: series.sum });
        values.push({ metricName: `${name}_count`, labels: series.labels, value: series.count });
      }
      return values;
    });
  }

  private register(
    registry: Registry,
    name: string,
    help: string,
    type: RegistryMetric['type'],
    values: () => Awaited<ReturnType<RegistryMetric['get']>>['values'],
  ): void {
    const metric: RegistryMetric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => this.series.clear(),
    };
    // The registry renders any object of this shape; prom-client's types name only its own classes.
    registry.registerMetric(metric as unknown as Metric);
  }
}
