/**
 * End to end through the in-memory API server, with RBAC: the cleanup controller (one replica, the
 * leader) refuses a DeletingPolicy that does not compile, admits one on a kind its ServiceAccount
 * may not delete (as Kyverno does) and deletes nothing with it; it deletes what a DeletingPolicy selects on its schedule with its propagation policy,
 * writes status.lastExecutionTime, emits the cleanup Event and counts the deletion; a
 * NamespacedDeletingPolicy deletes only in its namespace; a condition may read image configurations
 * from a registry (the CEL `image` library).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { startTestCluster, waitForWebhook, type TestCluster } from '@edict/controller-runtime/testing';
import { FakeRegistry } from '@edict/registry/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { startTestCleanup } from './testing/start-test-cleanup';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GROUP = 'policies.kyverno.io';

describe('cleanup controller: DeletingPolicies', () => {
  let cluster: TestCluster;
  let replica: RunningHttpController;
  let registry: FakeRegistry;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);
  const pod = (name: string, namespace = 'default') =>
    create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
  const deletingPolicy = (name: string, resources: string[], spec: Obj = {}, namespace?: string) => ({
    apiVersion: `${GROUP}/v1`,
    kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources }] },
      schedule: '@every 2s',
      ...spec,
    },
  });
  const submit = (policy: Obj) =>
    policy.metadata.namespace
      ? cluster.custom.createNamespacedCustomObject({
          group: GROUP,
          version: 'v1',
          namespace: policy.metadata.namespace,
          plural: 'namespaceddeletingpolicies',
          body: policy,
        })
      : cluster.custom.createClusterCustomObject({
          group: GROUP,
          version: 'v1',
          plural: 'deletingpolicies',
          body: policy,
        });

  beforeAll(async () => {
    cluster = await startTestCluster({ rbac: true });
    // What the chart grants the controller, and Pods to delete (no ConfigMaps).
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'cleanup-controller' },
      rules: [
        {
          apiGroups: ['kyverno.io'],
          resources: ['cleanuppolicies', 'clustercleanuppolicies'],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: [GROUP],
          resources: ['deletingpolicies', 'namespaceddeletingpolicies', 'policyexceptions'],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: [GROUP],
          resources: ['deletingpolicies/status', 'namespaceddeletingpolicies/status'],
          verbs: ['get', 'update', 'patch'],
        },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['create', 'delete', 'get', 'patch', 'update'],
        },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
        { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['*'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['*'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
      ],
    });
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'cleanup-controller' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cleanup-controller' },
      subjects: [{ kind: 'ServiceAccount', namespace: 'edict', name: 'edict-cleanup-controller' }],
    });
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
    const kubeconfig = await cluster.kubeconfigAs('system:serviceaccount:edict:edict-cleanup-controller', [
      'system:serviceaccounts',
      'system:serviceaccounts:edict',
    ]);
    registry = await FakeRegistry.start();
    replica = await startTestCleanup(cluster, {
      leaseIdentity: 'cleanup-a',
      kubeconfig,
      insecureRegistries: [registry.host],
      registryAllowedAddresses: ['127.0.0.1'],
    });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'edict-cleanup-controller.edict.svc');
  }, 60_000);

  afterAll(async () => {
    await replica?.stop().catch(() => undefined);
    await cluster?.stop();
    await registry?.close();
  });

  it('refuses a DeletingPolicy that does not compile, naming the field', async () => {
    const invalid = deletingPolicy('bad', ['pods'], {
      conditions: [{ name: 'broken', expression: 'object.metadata.name ==' }],
    });
    await expect(submit(invalid)).rejects.toThrow(
      /denied the request: spec\.conditions\[0\]\.expression: Invalid value/,
    );
    expect(get(`${GROUP}/v1`, 'DeletingPolicy', 'bad')).toBeUndefined();
  });

  it('admits a DeletingPolicy on a kind its ServiceAccount may not list or delete, as Kyverno does, and deletes nothing', async () => {
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'team-a' } });
    await submit(deletingPolicy('config-maps', ['configmaps'], {}, 'team-a'));
    const ran = () =>
      get(`${GROUP}/v1`, 'NamespacedDeletingPolicy', 'config-maps', 'team-a')?.status?.lastExecutionTime;
    await eventually(() => ran() !== undefined, 'a first run', 15_000);
    const first = ran();
    await eventually(() => ran() !== first, 'a second run', 15_000);
    expect(get('v1', 'ConfigMap', 'kept', 'team-a')).toBeDefined();
    cluster.apiServer.delete(`${GROUP}/v1`, 'NamespacedDeletingPolicy', 'config-maps', 'team-a');
  });

  it('deletes what a DeletingPolicy selects on its schedule, writes its status, an Event and a metric', async () => {
    pod('expired');
    pod('bystander');
    await submit(
      deletingPolicy('delete-expired', ['pods'], {
        conditions: [{ name: 'expired', expression: 'object.metadata.name == "expired"' }],
        deletionPropagationPolicy: 'Background',
      }),
    );
    await eventually(() => get('v1', 'Pod', 'expired', 'default') === undefined, 'expired deleted', 15_000);
    expect(get('v1', 'Pod', 'bystander', 'default')).toBeDefined();
    expect(get(`${GROUP}/v1`, 'DeletingPolicy', 'delete-expired')?.status?.lastExecutionTime).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
    );
    await eventually(
      () =>
        cluster.apiServer
          .list('events.k8s.io/v1', 'Event', 'default')
          .some(
            (event) =>
              (event as Obj).reason === 'PolicyApplied' &&
              (event as Obj).regarding?.kind === 'DeletingPolicy' &&
              (event as Obj).note === 'successfully cleaned up the target resource Pod/default/expired',
          ),
      'the PolicyApplied event',
    );
    const metrics = await replica.app.get(CleanupMetrics).text();
    expect(metrics).toMatch(
      /kyverno_deleting_controller_deletedobjects_total\{policy_type="DeletingPolicy",policy_namespace="",policy_name="delete-expired",resource_kind="Pod",resource_namespace="default",deletion_propagation="Background"\} 1/,
    );
    cluster.apiServer.delete(`${GROUP}/v1`, 'DeletingPolicy', 'delete-expired');
  });

  it('keeps a NamespacedDeletingPolicy in its namespace', async () => {
    pod('local', 'team-a');
    pod('elsewhere', 'team-b');
    await submit(deletingPolicy('delete-all-pods', ['pods'], {}, 'team-a'));
    await eventually(() => get('v1', 'Pod', 'local', 'team-a') === undefined, 'local deleted', 15_000);
    expect(get('v1', 'Pod', 'elsewhere', 'team-b')).toBeDefined();
    expect(
      get(`${GROUP}/v1`, 'NamespacedDeletingPolicy', 'delete-all-pods', 'team-a')?.status?.lastExecutionTime,
    ).toBeDefined();
  });

  it('reads image configurations from the registry in a condition (image.GetMetadata)', async () => {
    registry.pushImage('team/app', 'amd64', { config: { architecture: 'amd64', os: 'linux' } });
    registry.pushImage('team/app', 'arm64', { config: { architecture: 'arm64', os: 'linux' } });
    for (const arch of ['amd64', 'arm64'])
      create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `on-${arch}`, namespace: 'team-b', labels: { test: 'image-data' } },
        spec: { containers: [{ name: 'c', image: `${registry.host}/team/app:${arch}` }] },
      });
    await submit(
      deletingPolicy('delete-amd64', ['pods'], {
        conditions: [
          { name: 'this-test', expression: 'object.metadata.?labels.?test.orValue("") == "image-data"' },
          {
            name: 'amd64',
            expression: 'object.spec.containers.all(c, image.GetMetadata(c.image).config.architecture == "amd64")',
          },
        ],
      }),
    );
    await eventually(() => get('v1', 'Pod', 'on-amd64', 'team-b') === undefined, 'the amd64 Pod deleted', 15_000);
    expect(get('v1', 'Pod', 'on-arm64', 'team-b')).toBeDefined();
    cluster.apiServer.delete(`${GROUP}/v1`, 'DeletingPolicy', 'delete-amd64');
  });
});
