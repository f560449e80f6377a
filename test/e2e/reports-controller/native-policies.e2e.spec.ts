/**
 * Reports on Kubernetes' own admission policies end to end on the in-memory cluster, with the reports
 * controller: a ValidatingAdmissionPolicy that opts in (`reports.kyverno.io/enabled: "true"`) finds a
 * Deployment that existed before it, its binding's namespace selector decides which Deployments it
 * reports on, and the results reach the PolicyReports with source ValidatingAdmissionPolicy and the
 * binding in their properties; a policy that does not opt in is not reported on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { startTestCluster, type TestCluster } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestReports } from '@edict/reports-controller/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function deployment(name: string, namespace: string, replicas: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
    },
  };
}

function replicasPolicy(name: string, labels: Record<string, string>): Obj {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, labels },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    },
  };
}

describe('reports on ValidatingAdmissionPolicies', () => {
  let cluster: TestCluster;
  let reports: RunningHttpController;
  const policyReport = (uid: string, namespace: string) =>
    cluster.apiServer.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, namespace) as Obj | undefined;
  const create = (group: string, plural: string, body: Obj, namespace?: string) =>
    namespace
      ? cluster.custom.createNamespacedCustomObject({ group, version: 'v1', namespace, plural, body })
      : cluster.custom.createClusterCustomObject({ group, version: 'v1', plural, body });

  beforeAll(async () => {
    cluster = await startTestCluster();
    reports = await startTestReports(cluster, { backgroundScanIntervalMs: 1_500 });
    for (const [name, environment] of [
      ['staging', 'staging'],
      ['prod', 'prod'],
    ] as const) {
      await cluster.core.createNamespace({ body: { metadata: { name, labels: { environment } } } });
    }
  }, 60_000);

  afterAll(async () => {
    await reports?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('reports on existing Deployments through the binding that selects their namespace', async () => {
    const big = (await create('apps', 'deployments', deployment('big', 'staging', 7), 'staging')) as Obj;
    const prod = (await create('apps', 'deployments', deployment('big', 'prod', 7), 'prod')) as Obj;
    // Not opted in: never reported on.
    await create('admissionregistration.k8s.io', 'validatingadmissionpolicies', replicasPolicy('silent', {}));
    await create('admissionregistration.k8s.io', 'validatingadmissionpolicies', {
      ...replicasPolicy('replicas', { 'reports.kyverno.io/enabled': 'true' }),
    });
    await create('admissionregistration.k8s.io', 'validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'replicas-staging' },
      spec: {
        policyName: 'replicas',
        validationActions: ['Audit'],
        matchResources: { namespaceSelector: { matchLabels: { environment: 'staging' } } },
      },
    });
    await eventually(() => policyReport(big.metadata.uid, 'staging') !== undefined, 'the PolicyReport of big', 30_000);
    expect(policyReport(big.metadata.uid, 'staging')).toMatchObject({
      metadata: { labels: { 'app.kubernetes.io/managed-by': 'kyverno' } },
      scope: { kind: 'Deployment', name: 'big', namespace: 'staging' },
      summary: { fail: 1, pass: 0 },
      results: [
        {
          source: 'ValidatingAdmissionPolicy',
          policy: 'replicas',
          rule: 'replicas',
          result: 'fail',
          message: 'failed expression: object.spec.replicas <= 5',
          properties: { binding: 'replicas-staging', process: 'background scan' },
        },
      ],
    });
    // The binding does not select prod: no report there, and the silent policy reports nothing anywhere.
    expect(policyReport(prod.metadata.uid, 'prod')).toBeUndefined();
  }, 60_000);
});
