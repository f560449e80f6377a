/**
 * A counter and a histogram over the same label sets, counted in plain numbers and rendered in
 * Prometheus' text format only when scraped. prom-client sorts and joins every label on every
 * `inc`/`observe` (its children too); admission records one result per rule of every policy of
 * every review, so the hot path here is a walk down a tree of Maps, one level per label, keyed by
 * the label values themselves. Joining the values into one key instead built and hashed a new
 * long string per rule result. The label objects are built once per label set.
 *
 * The number of label sets is capped: past `maxSeries`, a new label set is counted in one overflow
 * series whose every label is `overflow`, so memory and the scrape stay bounded whatever the label
 * values; `overflowed` counts the observations folded there.
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

/** The value of every label of the series that new label sets fold into past the cap. */
export const OVERFLOW_LABEL_VALUE = 'overflow';

/** One level of the series tree: the next label's values, or at the last level the series. */
type SeriesTree<L extends string> = Map<string, SeriesTree<L> | TalliedSeries<L>>;

export class TalliedMetrics<L extends string> {
  private readonly tree: SeriesTree<L> = new Map();
  /** Every series, in the order first seen (the order they render in). */
  private readonly series: TalliedSeries<L>[] = [];
  /** Where label sets past the cap are counted (made when first needed). */
  private overflow?: TalliedSeries<L>;
  private folded = 0;

  /**
   * `labels`: the label names, in the order `observe` gets their values and the series render them.
   * `bounds`: the histogram's bucket upper bounds in seconds, ascending.
   * `maxSeries`: label sets kept apart; past it they fold into the overflow series, and
   * `onFirstOverflow` is called (once until a reset).
   */
  constructor(
    private readonly labels: readonly L[],
    private readonly bounds: readonly number[],
    private readonly maxSeries = Number.POSITIVE_INFINITY,
    private readonly onFirstOverflow: () => void = () => undefined,
  ) {
    if (labels.length === 0) throw new RangeError('a tallied metric needs at least one label');
    for (let index = 1; index < bounds.length; index += 1)
      if (!(bounds[index]! > bounds[index - 1]!)) throw new RangeError('bucket bounds must be ascending');
    if (!(maxSeries >= 1)) throw new RangeError(`maxSeries must be at least 1, got ${maxSeries}`);
  }

  /** Observations counted in the overflow series because the cap was reached. */
  get overflowed(): number {
    return this.folded;
  }

  /** The bucket an observation falls in (computed once when several series observe one value). */
  bucketOf(seconds: number): number {
    let index = 0;
    while (index < this.bounds.length && seconds > this.bounds[index]!) index += 1;
    return index;
  }

  /**
   * Counts one observation of `seconds` (in `bucket`, from `bucketOf`) for the label set whose
   * values are `values`, in the order of the label names.
   */
  observe(values: readonly string[], bucket: number, seconds: number): void {
    if (values.length !== this.labels.length)
      throw new RangeError(`expected ${this.labels.length} label values, got ${values.length}`);
    const series = this.find(values) ?? this.add(values);
    series.count += 1;
    series.sum += seconds;
    series.buckets[bucket]! += 1;
  }

  /** The label set's series, without creating tree levels for one not seen yet. */
  private find(values: readonly string[]): TalliedSeries<L> | undefined {
    let level: SeriesTree<L> | undefined = this.tree;
    const last = values.length - 1;
    for (let index = 0; index < last && level; index += 1) level = level.get(values[index]!) as SeriesTree<L>;
    return level?.get(values[last]!) as TalliedSeries<L> | undefined;
  }

  /** A new series for the label set, or past the cap the overflow series. */
  private add(values: readonly string[]): TalliedSeries<L> {
    if (this.series.length - (this.overflow ? 1 : 0) >= this.maxSeries) return this.overflowSeries();
    const last = values.length - 1;
    let level = this.tree;
    for (let index = 0; index < last; index += 1) {
      let next = level.get(values[index]!) as SeriesTree<L> | undefined;
      if (!next) level.set(values[index]!, (next = new Map()));
      level = next;
    }
    const series = this.newSeries(values);
    level.set(values[last]!, series);
    this.series.push(series);
    return series;
  }

  private overflowSeries(): TalliedSeries<L> {
    this.folded += 1;
    if (!this.overflow) {
      this.overflow = this.newSeries(this.labels.map(() => OVERFLOW_LABEL_VALUE));
      this.series.push(this.overflow);
      this.onFirstOverflow();
    }
    return this.overflow;
  }

  private newSeries(values: readonly string[]): TalliedSeries<L> {
    return {
      labels: this.labelSet(values),
      count: 0,
      sum: 0,
      buckets: new Array<number>(this.bounds.length + 1).fill(0),
    };
  }

  private labelSet(values: readonly string[]): Record<L, string> {
    const labels = {} as Record<L, string>;
    this.labels.forEach((name, index) => (labels[name] = values[index]!));
    return labels;
  }

  /** Registers the counter (observations per label set) under `name`. */
  registerCounter(registry: Registry, name: string, help: string): void {
    this.register(registry, name, help, 'counter', () =>
      this.series.map((series) => ({ labels: series.labels, value: series.count })),
    );
  }

  /** Registers the histogram (buckets, sum and count per label set) under `name`. */
  registerHistogram(registry: Registry, name: string, help: string): void {
    this.register(registry, name, help, 'histogram', () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const series of this.series) {
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
      reset: () => {
        this.tree.clear();
        this.series.length = 0;
        this.overflow = undefined;
        this.folded = 0;
      },
    };
    // The registry renders any object of this shape; prom-client's types name only its own classes.
    registry.registerMetric(metric as unknown as Metric);
  }
}
