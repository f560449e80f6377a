/**
 * End to end through the in-memory API server: the cleanup controller (two replicas, one leader)
 * publishes its validation webhook, which refuses an invalid cleanup policy with the reason, and a
 * policy on a kind its ServiceAccount may not delete (RBAC answers the access reviews); it deletes
 * what a policy's conditions select with a service call's answer in their context; it deletes what a
 * ClusterCleanupPolicy selects on its schedule and leaves the rest, deletes TTL-labelled objects
 * when due and leaves a bad label alone, and runs a slot once even while two replicas both act as
 * leader (election does not fence; the status claim does).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { KubeResources } from '@edict/kube';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startTestCluster, waitForWebhook, type TestCluster } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { CleanupPolicyController } from './policies/cleanup-policy-controller';
import { startTestCleanup } from './testing/start-test-cleanup';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('cleanup controller', () => {
  let cluster: TestCluster;
  // A service a policy's apiCall asks which Pods to delete; it counts its calls.
  let verdicts: Server;
  let verdictCalls = 0;
  const replicas: RunningHttpController[] = [];
  const leader = () => replicas.find((replica) => replica.app.get(LeaderService).isLeader());
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);
  const pod = (name: string, labels: Record<string, string> = {}, namespace = 'default') =>
    create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace, labels },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
  const cleanupPolicy = (name: string, schedule: string, podName: string) => ({
    apiVersion: 'kyverno.io/v2',
    kind: 'ClusterCleanupPolicy',
    metadata: { name },
    spec: {
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      conditions: { all: [{ key: '{{ target.metadata.name }}', operator: 'Equals', value: podName }] },
      schedule,
    },
  });

  beforeAll(async () => {
    cluster = await startTestCluster({ rbac: true });
    // The controller acts as its ServiceAccount, with what Kyverno's chart grants it and Pods to
    // delete (its `extraResources`): no ConfigMaps.
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
          apiGroups: ['kyverno.io'],
          resources: ['cleanuppolicies/status', 'clustercleanuppolicies/status'],
          verbs: ['update', 'patch'],
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
    const kubeconfig = await cluster.kubeconfigAs('system:serviceaccount:edict:edict-cleanup-controller', [
      'system:serviceaccounts',
      'system:serviceaccounts:edict',
    ]);
    verdicts = createServer((_request, response) => {
      verdictCalls++;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ delete: ['svc-target'] }));
    });
    await new Promise<void>((resolve) => verdicts.listen(0, '127.0.0.1', resolve));
    // The service listens on loopback, which the egress guard blocks by default.
    for (const identity of ['cleanup-a', 'cleanup-b'])
      replicas.push(await startTestCleanup(cluster, { leaseIdentity: identity, egressBlockedCidrs: [], kubeconfig }));
    await eventually(() => leader() !== undefined, 'a cleanup leader');
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'edict-cleanup-controller.edict.svc');
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop().catch(() => undefined);
    await cluster?.stop();
    verdicts?.close();
  });

  it('publishes its webhook configuration as Kyverno does', () => {
    const published = cluster.apiServer.get(
      'admissionregistration.k8s.io/v1',
      'ValidatingWebhookConfiguration',
      'edict-cleanup-validating-webhook-cfg',
    ) as Obj;
    expect(published.webhooks).toEqual([
      expect.objectContaining({
        name: 'edict-cleanup-controller.edict.svc',
        failurePolicy: 'Fail',
        sideEffects: 'None',
        clientConfig: expect.objectContaining({
          service: { name: 'edict-cleanup-controller', namespace: 'edict', path: '/validate', port: 443 },
        }),
        rules: [
          expect.objectContaining({ resources: ['cleanuppolicies', 'clustercleanuppolicies'] }),
          expect.objectContaining({ resources: ['deletingpolicies', 'namespaceddeletingpolicies'] }),
        ],
      }),
    ]);
  });

  it('refuses an invalid cleanup policy with the reason naming the field', async () => {
    const invalid = cleanupPolicy('bad', 'invalid-schedule', 'x');
    await expect(
      cluster.custom.createClusterCustomObject({
        group: 'kyverno.io',
        version: 'v2',
        plural: 'clustercleanuppolicies',
        body: invalid,
      }),
    ).rejects.toThrow(/denied the request: spec\.schedule: invalid cron schedule .*expected exactly 5 fields/);
    expect(get('kyverno.io/v2', 'ClusterCleanupPolicy', 'bad')).toBeUndefined();
  });

  it('refuses a cleanup policy on a kind its ServiceAccount may not delete, as Kyverno words it', async () => {
    const configMaps = cleanupPolicy('config-maps', '*/5 * * * *', 'x');
    configMaps.spec.match = { any: [{ resources: { kinds: ['ConfigMap'] } }] };
    await expect(
      cluster.custom.createClusterCustomObject({
        group: 'kyverno.io',
        version: 'v2',
        plural: 'clustercleanuppolicies',
        body: configMaps,
      }),
    ).rejects.toThrow(/denied the request: cleanup controller has no permission to delete kind ConfigMap/);
    expect(get('kyverno.io/v2', 'ClusterCleanupPolicy', 'config-maps')).toBeUndefined();
  });

  it('deletes what a ClusterCleanupPolicy selects on its schedule and leaves the others', async () => {
    pod('example');
    pod('bystander');
    await cluster.custom.createClusterCustomObject({
      group: 'kyverno.io',
      version: 'v2',
      plural: 'clustercleanuppolicies',
      body: cleanupPolicy('clean-example', '@every 2s', 'example'),
    });
    await eventually(() => get('v1', 'Pod', 'example', 'default') === undefined, 'example deleted', 15_000);
    expect(get('v1', 'Pod', 'bystander', 'default')).toBeDefined();
    expect(get('kyverno.io/v2', 'ClusterCleanupPolicy', 'clean-example')?.status?.lastExecutionTime).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
    );
    await eventually(
      () =>
        cluster.apiServer
          .list('events.k8s.io/v1', 'Event', 'default')
          .some(
            (event) =>
              (event as Obj).reason === 'PolicyApplied' &&
              (event as Obj).note === 'successfully cleaned up the target resource Pod/default/example',
          ),
      'the PolicyApplied event',
    );
    cluster.apiServer.delete('kyverno.io/v2', 'ClusterCleanupPolicy', 'clean-example');
  });

  it('loads a service call into the context of its conditions and deletes what they select', async () => {
    pod('svc-target');
    pod('svc-bystander');
    const url = `http://127.0.0.1:${(verdicts.address() as AddressInfo).port}/verdict`;
    await cluster.custom.createClusterCustomObject({
      group: 'kyverno.io',
      version: 'v2',
      plural: 'clustercleanuppolicies',
      body: {
        apiVersion: 'kyverno.io/v2',
        kind: 'ClusterCleanupPolicy',
        metadata: { name: 'ask-a-service' },
        spec: {
          context: [{ name: 'verdict', apiCall: { method: 'GET', service: { url }, jmesPath: 'delete' } }],
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          conditions: { all: [{ key: '{{ target.metadata.name }}', operator: 'AnyIn', value: '{{ verdict }}' }] },
          schedule: '@every 2s',
        },
      },
    });
    await eventually(() => get('v1', 'Pod', 'svc-target', 'default') === undefined, 'svc-target deleted', 15_000);
    expect(get('v1', 'Pod', 'svc-bystander', 'default')).toBeDefined();
    expect(verdictCalls).toBeGreaterThan(0);
    cluster.apiServer.delete('kyverno.io/v2', 'ClusterCleanupPolicy', 'ask-a-service');
  });

  it('deletes TTL-labelled objects when due and leaves a label that is no TTL alone', async () => {
    pod('short-lived', { 'cleanup.kyverno.io/ttl': '2s' });
    pod('long-gone', { 'cleanup.kyverno.io/ttl': '2023-07-19T120000Z' });
    pod('unreadable', { 'cleanup.kyverno.io/ttl': '10ay' });
    await eventually(() => get('v1', 'Pod', 'long-gone', 'default') === undefined, 'the past TTL deleted', 10_000);
    expect(get('v1', 'Pod', 'short-lived', 'default')).toBeDefined();
    await eventually(() => get('v1', 'Pod', 'short-lived', 'default') === undefined, 'the 2s TTL deleted', 10_000);
    expect(get('v1', 'Pod', 'unreadable', 'default')).toBeDefined();
    // Kyverno's TTL metrics: the types the leader watches, and the objects it deleted.
    // The Pod leaves the store before the delete call returns to the controller, which counts it then.
    const deleted =
      'kyverno_ttl_controller_deletedobjects_total{resource_namespace="default",resource_group="",resource_version="v1",resource_resource="pods"} 2';
    let text = '';
    const scrape = async () => (text = await leader()!.app.get(CleanupMetrics).text());
    for (let tries = 0; tries < 100 && !(await scrape()).includes(deleted); tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text).toContain(deleted);
    expect(text).toContain(
      'kyverno_ttl_controller_info{resource_group="",resource_version="v1",resource_resource="pods"} 1',
    );
  });

  it('runs a due slot once even when two replicas act as leader at the same time', async () => {
    const runs = () => Promise.all(replicas.map((r) => r.app.get(CleanupMetrics).runCount()));
    const before = (await runs()).reduce((a, b) => a + b, 0);
    pod('yearly-target');
    // Yearly, last run before this year's slot: exactly one slot is due, then none for months.
    const created = create(cleanupPolicy('yearly', '0 0 1 1 *', 'yearly-target')) as Obj;
    const resources = leader()!.app.get(KubeResources);
    await resources.replace<Obj>(
      { ...created, status: { lastExecutionTime: '2020-06-01T00:00:00Z' } },
      {
        subresource: 'status',
      },
    );
    // The follower runs its controller too, as a replica that still believes it leads would.
    const follower = replicas.find((replica) => replica !== leader())!;
    const stale = new AbortController();
    const staleRun = follower.app.get(CleanupPolicyController).onStartedLeading(stale.signal);
    await eventually(() => get('v1', 'Pod', 'yearly-target', 'default') === undefined, 'yearly target deleted', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // both had time to see the policy
    stale.abort();
    await staleRun;
    expect((await runs()).reduce((a, b) => a + b, 0) - before).toBe(1);
    expect(get('kyverno.io/v2', 'ClusterCleanupPolicy', 'yearly')?.status?.lastExecutionTime).not.toBe(
      '2020-06-01T00:00:00Z',
    );
  });
});
