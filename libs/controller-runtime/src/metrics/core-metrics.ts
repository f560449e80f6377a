/**
 * The metrics every Kyverno controller exports whatever it does (pkg/metrics metrics.go, http.go), on a
 * registry of their own that every Edict controller serves beside its app's:
 *  - `kyverno_info{version}` 1: the running version;
 *  - `kyverno_http_requests_total` and `kyverno_http_requests_duration_seconds` by `http_method` and
 *    `http_url`, for the requests the webhook handlers answer (Kyverno wraps those handlers, not its
 *    probes). The URL is the path without its query string, and the label sets are capped (a path
 *    under a wildcard route is chosen by the caller): past the cap they fold into one `overflow` series;
 *  - `kyverno_client_queries_total` by `operation`, `client_type`, `resource_kind` and
 *    `resource_namespace`: every call to the API server. Kyverno's typed clients know the kind; here it
 *    is read from the request path, so `resource_kind` is the resource (`pods`, `clusterpolicies`),
 *    and `client_type` follows the group (`kyverno`, `policyreport`, `kubeclient` for Kubernetes' own,
 *    `dynamic` for the rest). Capped like the HTTP metrics (a policy's apiCall names its path);
 *  - `kyverno_events_dropped_total`: the Kubernetes events the controller's event recorders gave up
 *    on (pkg/event: Kyverno counts an event not created after its retries; Edict's recorders also drop
 *    at their queue bounds, and count those too). An event whose object is gone is not counted.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { MetricsConfiguration } from './metrics-configuration';
import { TalliedMetrics } from './tallied-metrics';

export const KYVERNO_INFO = 'kyverno_info';
export const HTTP_REQUESTS_TOTAL = 'kyverno_http_requests_total';
export const HTTP_REQUESTS_DURATION = 'kyverno_http_requests_duration_seconds';
export const CLIENT_QUERIES_TOTAL = 'kyverno_client_queries_total';
export const EVENTS_DROPPED_TOTAL = 'kyverno_events_dropped_total';

/** Label sets kept for the HTTP request metrics. */
export const MAX_HTTP_SERIES = 200;

const HTTP_LABELS = ['http_method', 'http_url'] as const;
const CLIENT_LABELS = ['operation', 'client_type', 'resource_kind', 'resource_namespace'] as const;

/** Label sets kept for kyverno_client_queries_total. */
export const MAX_CLIENT_SERIES = 500;

const KYVERNO_GROUPS = new Set(['kyverno.io', 'policies.kyverno.io']);
const REPORT_GROUPS = new Set(['wgpolicyk8s.io', 'reports.kyverno.io', 'openreports.io']);

/** Kyverno's client query labels of an API server request (method, path, query). */
export function clientQuery(
  method: string,
  path: string,
  query?: Readonly<Record<string, unknown>>,
): [operation: string, clientType: string, resource: string, namespace: string] | undefined {
  const parts = path
    .split('?')[0]!
    .split('/')
    .filter((part) => part !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length >= 3) [group, rest] = [parts[1]!, parts.slice(3)];
  else return undefined;
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1]!, rest.slice(2)];
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  const watch = query?.['watch'] === true || query?.['watch'] === 'true' || query?.['watch'] === '1';
  const operation = (() => {
    switch (method.toUpperCase()) {
      case 'GET':
        return watch ? 'watch' : name ? 'get' : 'list';
      case 'POST':
        return 'create';
      case 'PUT':
        return subresource === 'status' ? 'update_status' : 'update';
      case 'PATCH':
        return 'patch';
      case 'DELETE':
        return name ? 'delete' : 'delete_collection';
      default:
        return method.toLowerCase();
    }
  })();
  const clientType = KYVERNO_GROUPS.has(group)
    ? 'kyverno'
    : REPORT_GROUPS.has(group)
      ? 'policyreport'
      : group === '' || !group.includes('.') || group.endsWith('.k8s.io')
        ? 'kubeclient'
        : 'dynamic';
  return [operation, clientType, resource, namespace];
}

/** The version label: the image's EDICT_VERSION, else the package's when run through npm. */
export function edictVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env.EDICT_VERSION || env.npm_package_version || 'unknown';
}

export class CoreMetrics {
  readonly registry = new Registry();
  private readonly http: TalliedMetrics<(typeof HTTP_LABELS)[number]>;
  private readonly clientQueries = new TalliedMetrics(CLIENT_LABELS, [], MAX_CLIENT_SERIES);
  private readonly eventsDropped: Counter;

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
    this.clientQueries.registerCounter(
      this.registry,
      CLIENT_QUERIES_TOTAL,
      'can be used to track the number of client queries sent from Kyverno to the API-server',
    );
    this.eventsDropped = new Counter({
      name: EVENTS_DROPPED_TOTAL,
      help: 'can be used to track the number of events dropped by the event generator',
      registers: [this.registry],
    });
  }

  /** One Kubernetes event given up on (KubeResources' onEventDropped). */
  recordEventDropped(): void {
    this.eventsDropped.inc();
  }

  /** One request to the API server (KubeHttpClient's onRequest). */
  recordClientQuery(method: string, path: string, query?: Readonly<Record<string, unknown>>): void {
    const labels = clientQuery(method, path, query);
    if (labels) this.clientQueries.observe(labels, 0, 0);
  }

  /** One request a webhook handler answered; `url` may carry a query string (left out). */
  recordHttpRequest(method: string, url: string, seconds: number): void {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    this.http.observe([method, path], this.http.bucketOf(seconds), seconds);
  }
}
