/**
 * Kyverno's dashboard and the `kyverno-metrics` ConfigMap on a running admission controller:
 *  - every metric the chart's Grafana dashboard queries (each panel's expressions, read from the JSON)
 *    is exported after a policy is created and reviews are answered, on the plain-HTTP metrics port;
 *  - with a `kyverno-metrics` ConfigMap excluding namespaces, reviews from those namespaces add no
 *    label values: the series stay as many as with none of them.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { httpsCall, requireLabelPolicy, testPod } from '@edict/controller-runtime/testing';

const DASHBOARD = join('charts', 'edict', 'grafana', 'edict-dashboard.json');
const NOISY = Array.from({ length: 20 }, (_, index) => `noisy-${index}`);

interface Panel {
  readonly title?: string;
  readonly targets?: readonly { readonly expr?: string }[];
  readonly panels?: readonly Panel[];
}

/** Every metric a query names (a histogram's by its own name, without `_bucket`, `_sum`, `_count`). */
function dashboardMetrics(): Map<string, string[]> {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[]; templating: unknown };
  const metrics = new Map<string, string[]>();
  const visit = (panel: Panel) => {
    for (const target of panel.targets ?? [])
      for (const [name] of (target.expr ?? '').matchAll(/\b[a-z_]+(?=\{|\[|\))/g))
        if (name.startsWith('kyverno_')) metrics.set(name, [...(metrics.get(name) ?? []), panel.title ?? '']);
    for (const inner of panel.panels ?? []) visit(inner);
  };
  dashboard.panels.forEach(visit);
  return metrics;
}

function scrape(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/metrics' }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        response.statusCode === 200 ? resolve(text) : reject(new Error(`${response.statusCode}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

function review(index: number, namespace: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `u-${index}`,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE',
      namespace,
      name: `p-${index}`,
      userInfo: { username: 'someone' },
      object: testPod(`p-${index}`, { team: 'a' }, namespace),
    },
  };
}

describe("Kyverno's dashboard and the kyverno-metrics ConfigMap", () => {
  let cluster: E2eCluster;
  let controller: RunningController;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    for (const name of NOISY) cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${cluster.names.configMap}-metrics`, namespace: cluster.names.namespace },
      data: { namespaces: JSON.stringify({ exclude: NOISY }), bucketBoundaries: '0.01, 0.1, 1' },
    });
    controller = await cluster.startReplica({ metricsPort: 0 });
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    const ca = controller.caBundlePem();
    let index = 0;
    for (const namespace of ['default', ...NOISY]) {
      const answer = await httpsCall(controller.port, ca, '/validate/fail', {
        method: 'POST',
        payload: Buffer.from(JSON.stringify(review(index++, namespace))),
      });
      expect(answer.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('exports on the metrics port every metric the dashboard queries', async () => {
    expect(controller.metricsPort).toBeGreaterThan(0);
    const text = await scrape(controller.metricsPort!);
    const queried = dashboardMetrics();
    expect(queried.size).toBeGreaterThanOrEqual(6);
    const missing = [...queried.keys()].filter((name) => !new RegExp(`^${name}[{ ]`, 'm').test(text));
    expect(missing).toEqual([]);
    expect(text).toMatch(
      /^kyverno_policy_changes_total\{[^}]*policy_name="require-team",policy_change_type="created"\} 1$/m,
    );
    expect(text).toMatch(
      /^kyverno_policy_rule_info_total\{rule_name="check-team",rule_type="validate",policy_namespace="-",policy_name="require-team",[^}]*\} 1$/m,
    );
    expect(text).toMatch(/^kyverno_http_requests_total\{http_method="POST",http_url="\/validate\/fail"\} 21$/m);
    expect(text).toMatch(/^kyverno_info\{version="[^"]+"\} 1$/m);
    expect(text).toMatch(
      /^kyverno_client_queries_total\{operation="list",client_type="kyverno",resource_kind="clusterpolicies",resource_namespace=""\} \d+$/m,
    );
  });

  it('adds no series for the namespaces the ConfigMap excludes, and uses its boundaries', async () => {
    const text = await scrape(controller.metricsPort!);
    expect(text).not.toContain('noisy-');
    const requests = text.split('\n').filter((line) => line.startsWith('kyverno_admission_requests_total{'));
    expect(requests).toEqual([
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="true"} 1',
    ]);
    const bounds = text
      .split('\n')
      .filter((line) => line.startsWith('kyverno_admission_review_duration_seconds_bucket{'))
      .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    expect(bounds).toEqual(['0.01', '0.1', '1', '+Inf']);
  });
});
