/**
 * The metrics every Kyverno controller exports whatever it does (pkg/metrics metrics.go, http.go), on a
 * registry of their own that every Edict controller serves beside its app's:
 *  - `kyverno_info{version}` 1: the running version;
 *  - `kyverno_http_requests_total` and `kyverno_http_requests_duration_seconds` by `http_method` and
 *    `http_url`, for the requests the webhook handlers answer (Kyverno wraps those handlers, not its
 *    probes). The URL is the path without its query string, and the label sets are capped (a path
 *    under a wildcard route is chosen by the caller): past the cap they fold into one `overflow` series.
 */
import { Gauge, Registry } from 'prom-client';
import { MetricsConfiguration } from './metrics-configuration';
import { TalliedMetrics } from './tallied-metrics';

export const KYVERNO_INFO = 'kyverno_info';
export const HTTP_REQUESTS_TOTAL = 'kyverno_http_requests_total';
export const HTTP_REQUESTS_DURATION = 'kyverno_http_requests_duration_seconds';

/** Label sets kept for the HTTP request metrics. */
export const MAX_HTTP_SERIES = 200;

const HTTP_LABELS = ['http_method', 'http_url'] as const;

/** The version label: the image's EDICT_VERSION, else the package's when run through npm. */
export function edictVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env.EDICT_VERSION || env.npm_package_version || 'unknown';
}

export class CoreMetrics {
  readonly registry = new Registry();
  private readonly http: TalliedMetrics<(typeof HTTP_LABELS)[number]>;

  constructor(configuration: MetricsConfiguration = MetricsConfiguration.DEFAULT, version = edictVersion()) {
    new Gauge({
      name: KYVERNO_INFO,
      help: 'Kyverno version information',
      labelNames: ['version'],
      registers: [this.registry],
      // Set at every scrape, so that a metrics refresh does not lose it.
      collect() {
        this.set({ version }, 1);
      },
    });
    this.http = new TalliedMetrics(HTTP_LABELS, configuration.boundariesFor(HTTP_REQUESTS_DURATION), MAX_HTTP_SERIES);
    this.http.registerCounter(this.registry, HTTP_REQUESTS_TOTAL, 'can be used to track the number of http requests');
    this.http.registerHistogram(
      this.registry,
      HTTP_REQUESTS_DURATION,
      'can be used to track the latencies (in seconds) associated with the entire individual http request.',
    );
  }

  /** One request a webhook handler answered; `url` may carry a query string (left out). */
  recordHttpRequest(method: string, url: string, seconds: number): void {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    this.http.observe([method, path], this.http.bucketOf(seconds), seconds);
  }
}
