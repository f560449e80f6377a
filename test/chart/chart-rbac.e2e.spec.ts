/**
 * The chart's RBAC against what the controllers' code calls. Local mode installs each controller's
 * RBAC from the chart's own rule files and runs it as its ServiceAccount; this spec checks that the
 * chart renders exactly those objects, then drives the four controllers through their code paths
 * (webhooks and certificates, leader election, admission with a generate rule, background
 * generation, background scans into PolicyReports, the TTL cleanup of an object a ClusterRole
 * aggregated into the cleanup controller's lets it delete) and asserts that the API server refused
 * none of their requests: a controller needing a verb the chart does not grant fails it with the
 * request.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { TEST_TIMINGS } from '@edict/admission-controller/testing';
import { CONTROLLER_COMPONENTS, controllerRbac, startLocalCluster, type LocalCluster } from '@edict/launcher';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { renderChart, type RenderedObject } from './helm';

const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** What RBAC decides with, keyed by kind, namespace and name (labels and annotations aside). */
function rbacContent(objects: readonly { kind?: unknown; metadata?: unknown; [field: string]: unknown }[]) {
  const content: Record<string, unknown> = {};
  for (const object of objects) {
    const kind = object.kind as string;
    if (!RBAC_KINDS.has(kind)) continue;
    const { name, namespace } = object.metadata as { name: string; namespace?: string };
    content[`${kind} ${namespace ?? ''}/${name}`] = {
      rules: object['rules'],
      aggregationRule: object['aggregationRule'],
      roleRef: object['roleRef'],
      subjects: object['subjects'],
    };
  }
  return content;
}

async function eventually<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

describe("the chart's RBAC is what local mode runs the controllers under", () => {
  it('renders the same ServiceAccounts, roles and bindings as local mode installs', () => {
    const chart = renderChart(['--set', 'webhooksCleanup.enabled=false']);
    // The chart's defaults: ValidatingAdmissionPolicy generation on, MutatingAdmissionPolicy generation off.
    const generates = { validating: true, mutating: false };
    const local = CONTROLLER_COMPONENTS.flatMap((component) =>
      controllerRbac({ installName: 'edict', namespace: 'edict', component, generates }),
    );
    expect(rbacContent(chart as RenderedObject[])).toEqual(rbacContent(local));
  });
});

describe('the controllers, each as its ServiceAccount under the chart RBAC, through their code paths', () => {
  let local: LocalCluster;
  let client: KubernetesObjectApi;

  beforeAll(async () => {
    local = await startLocalCluster({
      apiPort: 0,
      kubeconfigPath: join(mkdtempSync(join(tmpdir(), 'edict-chart-rbac-')), 'kubeconfig'),
      env: {},
      controller: { port: 0, ...TEST_TIMINGS },
      background: TEST_TIMINGS,
      reports: TEST_TIMINGS,
      cleanup: { ...TEST_TIMINGS, port: 0, ttlDiscoveryIntervalMs: 1_000 },
      logger: false,
      recordRequests: true,
      readyTimeoutMs: 30_000,
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(local.kubeconfigPath);
    client = KubernetesObjectApi.makeApiClient(kubeConfig);
  }, 90_000);

  afterAll(async () => {
    await local?.stop();
  });

  it('answers none of their requests with 403 Forbidden', async () => {
    const create = (object: object) => client.create(object as KubernetesObject);
    // A user's grant to the cleanup controller, aggregated into its ClusterRole as with Kyverno.
    await create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'cleanup-configmaps', labels: { 'rbac.kyverno.io/aggregate-to-cleanup-controller': 'true' } },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'delete'] }],
    });
    await create({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'team-defaults' },
      spec: {
        rules: [
          {
            name: 'defaults-configmap',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['team-*'] } }] },
            generate: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'team-defaults',
              namespace: '{{request.object.metadata.name}}',
              synchronize: true,
              data: { data: { owner: '{{request.object.metadata.name}}' } },
            },
          },
        ],
      },
    });
    await create({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'audit-app-label' },
      spec: {
        validationFailureAction: 'Audit',
        background: true,
        rules: [
          {
            name: 'app-label',
            match: { any: [{ resources: { kinds: ['ConfigMap'], namespaces: ['team-*'] } }] },
            validate: { message: 'an app label is expected', pattern: { metadata: { labels: { app: '?*' } } } },
          },
        ],
      },
    });
    await eventually('the policies to be ready', () =>
      ['team-defaults', 'audit-app-label'].every((name) => {
        const status = local.apiServer.get('kyverno.io/v1', 'ClusterPolicy', name)?.['status'] as
          { conditions?: Array<{ type: string; status: string }> } | undefined;
        return status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');
      })
        ? true
        : undefined,
    );
    await create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    await eventually('the generated ConfigMap', () =>
      local.apiServer.get('v1', 'ConfigMap', 'team-defaults', 'team-a'),
    );
    await create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'short-lived', namespace: 'team-a', labels: { 'cleanup.kyverno.io/ttl': '1s' } },
    });
    await eventually('a PolicyReport from the reports controller', () =>
      local.apiServer.list('wgpolicyk8s.io/v1alpha2', 'PolicyReport', 'team-a').length > 0 ? true : undefined,
    );
    await eventually('the TTL cleanup', () =>
      local.apiServer.get('v1', 'ConfigMap', 'short-lived', 'team-a') ? undefined : true,
    );

    const controllers = local.apiServer.requests
      .requests()
      .filter((request) => request.user.startsWith('system:serviceaccount:edict:edict-'));
    for (const component of CONTROLLER_COMPONENTS) {
      expect(
        controllers.some((request) => request.user.endsWith(`:edict-${component}`)),
        component,
      ).toBe(true);
    }
    const forbidden = controllers
      .filter((request) => request.status === 403)
      .map((request) => `${request.user} ${request.method} ${request.path}`);
    expect([...new Set(forbidden)]).toEqual([]);
  }, 90_000);
});
