/**
 * Kyverno's `kyverno-metrics` ConfigMap (pkg/config/metricsconfig.go), read the way Kyverno reads it:
 *  - `namespaces`: JSON `{"include": [...], "exclude": [...]}`; a namespace is counted unless excluded,
 *    and when `include` is set only if included; `""` and `-` (cluster-wide) always are;
 *  - `bucketBoundaries`: comma-separated seconds, every histogram's buckets (default below);
 *  - `metricsExposure`: JSON `{"<metric>": {"enabled", "disabledLabelDimensions", "bucketBoundaries"}}`
 *    per metric (a counter may be named with or without its `_total`), `enabled` true by default,
 *    boundaries defaulting to `bucketBoundaries`;
 *  - `metricsRefreshInterval`: a Go duration; every metric starts over that often (0: never).
 * A key that does not parse is logged and left at its default, as Kyverno does. Edict adds bounds (a
 * ConfigMap is user input): list lengths and ascending, finite boundaries; past them the key is refused.
 */
import { goParseFloat, parseDuration } from '@edict/foundation';

/** Kyverno's default histogram boundaries, in seconds. */
export const DEFAULT_BUCKET_BOUNDARIES: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30,
];

/** Bounds of what the ConfigMap may set. */
export const METRICS_CONFIG_LIMITS = {
  namespaces: 1_000,
  boundaries: 64,
  exposedMetrics: 200,
  labelDimensions: 32,
} as const;

/** The smallest refresh interval honoured (a shorter one would wipe the metrics between scrapes). */
export const MIN_REFRESH_INTERVAL_MS = 1_000;

export interface MetricExposure {
  readonly enabled: boolean;
  readonly disabledLabelDimensions: readonly string[];
  readonly bucketBoundaries: readonly number[];
}

export type MetricsConfigLog = (message: string) => void;

export class MetricsConfiguration {
  readonly includeNamespaces: readonly string[];
  readonly excludeNamespaces: readonly string[];
  readonly bucketBoundaries: readonly number[];
  /** 0: the metrics are never reset. */
  readonly refreshIntervalMs: number;
  private readonly exposures: ReadonlyMap<string, MetricExposure>;

  /** Kyverno's defaults: every namespace, the default boundaries, every metric exposed, no refresh. */
  static readonly DEFAULT = new MetricsConfiguration();

  /** The ConfigMap's data (none: the defaults); problems go to `log`. */
  constructor(data?: Readonly<Record<string, string>>, log: MetricsConfigLog = () => undefined) {
    const parsed = parse(data ?? {}, log);
    this.includeNamespaces = parsed.include;
    this.excludeNamespaces = parsed.exclude;
    this.bucketBoundaries = parsed.boundaries;
    this.refreshIntervalMs = parsed.refreshIntervalMs;
    this.exposures = parsed.exposures;
  }

  /** Whether a namespace's series are recorded (Kyverno's CheckNamespace). */
  checkNamespace(namespace: string | undefined): boolean {
    if (!namespace || namespace === '-') return true;
    if (this.excludeNamespaces.includes(namespace)) return false;
    return this.includeNamespaces.length === 0 || this.includeNamespaces.includes(namespace);
  }

  /** The exposure set for a metric (by its exposed name, or a counter's without `_total`), if any. */
  exposure(metric: string): MetricExposure | undefined {
    return (
      this.exposures.get(metric) ??
      (metric.endsWith('_total') ? this.exposures.get(metric.slice(0, -'_total'.length)) : undefined)
    );
  }

  /** Whether any metric's exposure is set (the scrape then filters). */
  get hasExposures(): boolean {
    return this.exposures.size > 0;
  }

  enabled(metric: string): boolean {
    return this.exposure(metric)?.enabled ?? true;
  }

  /** A histogram's bucket boundaries: its own exposure's, else the ConfigMap's. */
  boundariesFor(metric: string): readonly number[] {
    const own = this.exposure(metric)?.bucketBoundaries;
    return own && own.length > 0 ? own : this.bucketBoundaries;
  }
}

interface Parsed {
  include: string[];
  exclude: string[];
  boundaries: readonly number[];
  refreshIntervalMs: number;
  exposures: Map<string, MetricExposure>;
}

function parse(data: Readonly<Record<string, string>>, log: MetricsConfigLog): Parsed {
  const parsed: Parsed = {
    include: [],
    exclude: [],
    boundaries: DEFAULT_BUCKET_BOUNDARIES,
    refreshIntervalMs: 0,
    exposures: new Map(),
  };
  const attempt = (key: string, apply: (value: string) => void) => {
    const value = data[key];
    if (value === undefined) return;
    try {
      apply(value);
    } catch (error) {
      log(`kyverno-metrics: ${key} ignored: ${(error as Error).message}`);
    }
  };
  attempt('metricsRefreshInterval', (value) => {
    const nanos = parseDuration(value.trim());
    if (nanos === undefined) throw new Error(`"${value}" is not a duration`);
    const ms = Math.max(0, nanos / 1e6);
    if (ms > 0 && ms < MIN_REFRESH_INTERVAL_MS) throw new Error(`${value} is shorter than 1s`);
    parsed.refreshIntervalMs = ms;
  });
  attempt('namespaces', (value) => {
    const object = parseJsonObject(value);
    parsed.include = stringList(object.include, 'include', METRICS_CONFIG_LIMITS.namespaces);
    parsed.exclude = stringList(object.exclude, 'exclude', METRICS_CONFIG_LIMITS.namespaces);
  });
  attempt('bucketBoundaries', (value) => {
    parsed.boundaries = parseBoundaries(value);
  });
  attempt('metricsExposure', (value) => {
    const object = parseJsonObject(value);
    const entries = Object.entries(object);
    if (entries.length > METRICS_CONFIG_LIMITS.exposedMetrics)
      throw new Error(`more than ${METRICS_CONFIG_LIMITS.exposedMetrics} metrics`);
    const exposures = new Map<string, MetricExposure>();
    for (const [metric, raw] of entries) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
        throw new Error(`${metric}: expected an object`);
      const entry = raw as Record<string, unknown>;
      if (entry.enabled !== undefined && typeof entry.enabled !== 'boolean')
        throw new Error(`${metric}.enabled: expected a boolean`);
      const boundaries =
        entry.bucketBoundaries === undefined || entry.bucketBoundaries === null
          ? parsed.boundaries
          : checkBoundaries(numberList(entry.bucketBoundaries, `${metric}.bucketBoundaries`));
      exposures.set(metric, {
        enabled: entry.enabled ?? true,
        disabledLabelDimensions: stringList(
          entry.disabledLabelDimensions,
          `${metric}.disabledLabelDimensions`,
          METRICS_CONFIG_LIMITS.labelDimensions,
        ),
        bucketBoundaries: boundaries,
      });
    }
    parsed.exposures = exposures;
  });
  return parsed;
}

function parseJsonObject(value: string): Record<string, unknown> {
  const object: unknown = JSON.parse(value);
  if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new Error('expected a JSON object');
  return object as Record<string, unknown>;
}

function stringList(value: unknown, what: string, limit: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new Error(`${what}: expected a list of strings`);
  if (value.length > limit) throw new Error(`${what}: more than ${limit} entries`);
  return value as string[];
}

function numberList(value: unknown, what: string): number[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'number'))
    throw new Error(`${what}: expected a list of numbers`);
  return value as number[];
}

/** Kyverno's bucketBoundaries text: comma-separated floats (an empty text: no buckets but +Inf). */
function parseBoundaries(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  return checkBoundaries(
    trimmed.split(',').map((part) => {
      const value = goParseFloat(part.trim());
      if (value === undefined) throw new Error(`invalid boundary value '${part.trim()}'`);
      return value;
    }),
  );
}

function checkBoundaries(values: number[]): number[] {
  if (values.length > METRICS_CONFIG_LIMITS.boundaries)
    throw new Error(`more than ${METRICS_CONFIG_LIMITS.boundaries} boundaries`);
  values.forEach((value, index) => {
    if (!Number.isFinite(value)) throw new Error(`boundary ${value} is not finite`);
    if (index > 0 && !(value > values[index - 1]!)) throw new Error('boundaries must be ascending');
  });
  return values;
}
