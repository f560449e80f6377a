import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CoreMetrics, clientQuery } from './core-metrics';
import { DEFAULT_BUCKET_BOUNDARIES, MetricsConfiguration } from './metrics-configuration';
import { renderMetrics } from './metrics-exposition';

describe('the kyverno-metrics ConfigMap', () => {
  it("has Kyverno's defaults: every namespace, its 15 boundaries, every metric, no refresh", () => {
    const config = new MetricsConfiguration();
    expect(config.checkNamespace('anything')).toBe(true);
    expect(config.bucketBoundaries).toEqual(DEFAULT_BUCKET_BOUNDARIES);
    expect(DEFAULT_BUCKET_BOUNDARIES.at(-1)).toBe(30);
    expect(config.enabled('kyverno_policy_results_total')).toBe(true);
    expect(config.refreshIntervalMs).toBe(0);
  });

  it('counts a namespace unless excluded, and only included ones once include is set; cluster-wide always', () => {
    const excluding = new MetricsConfiguration({ namespaces: '{"exclude":["kube-system"]}' });
    expect(excluding.checkNamespace('kube-system')).toBe(false);
    expect(excluding.checkNamespace('default')).toBe(true);
    const including = new MetricsConfiguration({ namespaces: '{"include":["team-a"],"exclude":["team-a"]}' });
    expect(including.checkNamespace('team-a')).toBe(false);
    expect(including.checkNamespace('team-b')).toBe(false);
    expect(including.checkNamespace('')).toBe(true);
    expect(including.checkNamespace('-')).toBe(true);
  });

  it('reads bucketBoundaries, metricsExposure (with or without _total) and metricsRefreshInterval', () => {
    const config = new MetricsConfiguration({
      bucketBoundaries: '0.1, 1,10',
      metricsRefreshInterval: '1m30s',
      metricsExposure: JSON.stringify({
        kyverno_policy_changes: { enabled: false },
        kyverno_admission_review_duration_seconds: { disabledLabelDimensions: ['resource_namespace'] },
        kyverno_policy_execution_duration_seconds: { bucketBoundaries: [0.5, 2] },
      }),
    });
    expect(config.bucketBoundaries).toEqual([0.1, 1, 10]);
    expect(config.refreshIntervalMs).toBe(90_000);
    expect(config.enabled('kyverno_policy_changes_total')).toBe(false);
    expect(config.exposure('kyverno_admission_review_duration_seconds')?.disabledLabelDimensions).toEqual([
      'resource_namespace',
    ]);
    expect(config.boundariesFor('kyverno_admission_review_duration_seconds')).toEqual([0.1, 1, 10]);
    expect(config.boundariesFor('kyverno_policy_execution_duration_seconds')).toEqual([0.5, 2]);
  });

  it('leaves a key that does not parse, or is out of bounds, at its default and says why', () => {
    const problems: string[] = [];
    const config = new MetricsConfiguration(
      {
        namespaces: '{"exclude": "kube-system"}',
        bucketBoundaries: '1, x',
        metricsRefreshInterval: '10ms',
        metricsExposure: JSON.stringify({ a: { bucketBoundaries: [2, 1] } }),
      },
      (message) => problems.push(message),
    );
    expect(config.excludeNamespaces).toEqual([]);
    expect(config.bucketBoundaries).toEqual(DEFAULT_BUCKET_BOUNDARIES);
    expect(config.refreshIntervalMs).toBe(0);
    expect(config.hasExposures).toBe(false);
    expect(problems).toEqual([
      'kyverno-metrics: metricsRefreshInterval ignored: 10ms is shorter than 1s',
      'kyverno-metrics: namespaces ignored: exclude: expected a list of strings',
      "kyverno-metrics: bucketBoundaries ignored: invalid boundary value 'x'",
      'kyverno-metrics: metricsExposure ignored: boundaries must be ascending',
    ]);
    const many = Array.from({ length: 1001 }, (_, index) => `ns-${index}`);
    expect(new MetricsConfiguration({ namespaces: JSON.stringify({ exclude: many }) }).excludeNamespaces).toEqual([]);
  });
});

describe('the scrape with metricsExposure', () => {
  function registry() {
    const registry = new Registry();
    const counter = new Counter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [registry] });
    counter.inc({ a: 'x', b: '1' });
    counter.inc({ a: 'x', b: '2' }, 2);
    counter.inc({ a: 'y', b: '1' });
    const histogram = new Histogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registers: [registry] });
    histogram.observe({ a: 'x' }, 0.5);
    histogram.observe({ a: 'y' }, 2);
    new Counter({ name: 'gone_total', help: 'g', registers: [registry] }).inc();
    return registry;
  }

  it('serves the registries unchanged without exposure settings', async () => {
    const registries = [registry()];
    expect(await renderMetrics(registries, MetricsConfiguration.DEFAULT)).toBe(await registries[0]!.metrics());
  });

  it('leaves disabled metrics out and sums series over the disabled label dimensions', async () => {
    const config = new MetricsConfiguration({
      metricsExposure: JSON.stringify({
        gone: { enabled: false },
        c_total: { disabledLabelDimensions: ['b'] },
        h: { disabledLabelDimensions: ['a'] },
      }),
    });
    const text = await renderMetrics([registry()], config);
    expect(text).not.toContain('gone_total');
    expect(text).toContain('c_total{a="x"} 3\n');
    expect(text).toContain('c_total{a="y"} 1\n');
    expect(text).toContain('h_bucket{le="1"} 1\n');
    expect(text).toContain('h_bucket{le="+Inf"} 2\n');
    expect(text).toContain('h_count 2\n');
    expect(text).toContain('h_sum 2.5\n');
  });
});

describe('the core metrics', () => {
  it('export kyverno_info with the version, and the webhook requests by method and path', async () => {
    const core = new CoreMetrics(MetricsConfiguration.DEFAULT, '1.2.3');
    core.recordHttpRequest('POST', '/validate/fail?timeout=10s', 0.01);
    core.recordHttpRequest('POST', '/validate/fail?timeout=3s', 0.02);
    const text = await core.registry.metrics();
    expect(text).toContain('kyverno_info{version="1.2.3"} 1');
    expect(text).toContain('kyverno_http_requests_total{http_method="POST",http_url="/validate/fail"} 2');
    expect(text).toContain(
      'kyverno_http_requests_duration_seconds_bucket{le="30",http_method="POST",http_url="/validate/fail"} 2',
    );
    core.registry.resetMetrics();
    const after = await core.registry.metrics();
    expect(after).toContain('kyverno_info{version="1.2.3"} 1');
    expect(after).not.toContain('http_url="/validate/fail"');
  });

  it('count the events given up on in kyverno_events_dropped_total', async () => {
    const core = new CoreMetrics(MetricsConfiguration.DEFAULT, '1.2.3');
    expect(await core.registry.metrics()).toContain('kyverno_events_dropped_total 0\n');
    core.recordEventDropped();
    core.recordEventDropped();
    expect(await core.registry.metrics()).toContain('kyverno_events_dropped_total 2\n');
  });
});

describe("Kyverno's client query labels", () => {
  it('read the operation, client type, resource and namespace from the request', () => {
    expect(clientQuery('GET', '/api/v1/namespaces/team-a/configmaps/settings')).toEqual([
      'get',
      'kubeclient',
      'configmaps',
      'team-a',
    ]);
    expect(clientQuery('GET', '/apis/kyverno.io/v1/clusterpolicies', { watch: true })).toEqual([
      'watch',
      'kyverno',
      'clusterpolicies',
      '',
    ]);
    expect(clientQuery('GET', '/apis/wgpolicyk8s.io/v1alpha2/namespaces/x/policyreports')?.slice(0, 2)).toEqual([
      'list',
      'policyreport',
    ]);
    expect(clientQuery('PUT', '/apis/kyverno.io/v1/clusterpolicies/p/status')?.[0]).toBe('update_status');
    expect(clientQuery('DELETE', '/apis/example.com/v1/namespaces/x/widgets')?.slice(0, 2)).toEqual([
      'delete_collection',
      'dynamic',
    ]);
    expect(clientQuery('GET', '/version')).toBeUndefined();
  });
});
