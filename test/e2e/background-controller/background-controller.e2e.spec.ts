/**
 * End to end through the in-memory API server: the admission controller turns triggers into
 * UpdateRequests, the background controller (two replicas, one leader) processes them: a data rule
 * generates a NetworkPolicy for a new Namespace, a clone rule copies a Secret, a mutate-existing
 * rule patches a ConfigMap when its trigger is created, a rule matching DELETE generates when its
 * trigger goes; the clone's trigger gets a report naming the copy; the follower never processes
 * anything and processed requests are deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { BackgroundMetrics, startTestBackground } from '@edict/background-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('background controller', () => {
  let cluster: E2eCluster;
  const replicas: RunningHttpController[] = [];
  const leader = () => replicas.find((replica) => replica.app.get(LeaderService).isLeader());
  const processed = (replica: RunningHttpController) => replica.app.get(BackgroundMetrics).processedCount();
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const updateRequests = () => cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace);
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    cluster.apiServer.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm-admins' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: 'kubeadm:cluster-admins' }],
    } as unknown as JsonObject);
    await cluster.startReplica({ omitEvents: [] });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    for (const identity of ['background-a', 'background-b']) {
      replicas.push(await startTestBackground(cluster, { leaseIdentity: identity, omitEvents: [] }));
    }
    await eventually(() => leader() !== undefined, 'a background leader');
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('generates a NetworkPolicy for a new Namespace from a data rule, labelled as Kyverno does', async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('default-deny', {
        rules: [
          {
            name: 'deny-all',
            match: { any: [{ resources: { kinds: ['Namespace'] } }] },
            generate: {
              apiVersion: 'networking.k8s.io/v1',
              kind: 'NetworkPolicy',
              name: 'default-deny',
              namespace: '{{request.object.metadata.name}}',
              data: { spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'namespaces');
    await cluster.core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    await eventually(
      () => get('networking.k8s.io/v1', 'NetworkPolicy', 'default-deny', 'team-a') !== undefined,
      'the NetworkPolicy',
      15_000,
    );
    const generated = get('networking.k8s.io/v1', 'NetworkPolicy', 'default-deny', 'team-a')!;
    expect(generated.spec).toMatchObject({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    expect(generated.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'kyverno',
      'generate.kyverno.io/policy-name': 'default-deny',
      'generate.kyverno.io/rule-name': 'deny-all',
      'generate.kyverno.io/trigger-kind': 'Namespace',
      'generate.kyverno.io/trigger-uid': get('v1', 'Namespace', 'team-a')!.metadata.uid,
    });
    // Completed requests are deleted.
    await eventually(() => updateRequests().length === 0, 'the UpdateRequest deleted', 10_000);
  }, 30_000);

  it('copies a Secret into a new Namespace from a clone rule', async () => {
    create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'default' },
      data: { token: 'c2VjcmV0' },
    });
    await cluster.createClusterPolicy(
      clusterPolicy('sync-regcred', {
        rules: [
          {
            name: 'clone-regcred',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['team-b'] } }] },
            generate: {
              apiVersion: 'v1',
              kind: 'Secret',
              name: 'regcred',
              namespace: '{{request.object.metadata.name}}',
              clone: { namespace: 'default', name: 'regcred' },
            },
          },
        ],
      }),
    );
    await cluster.core.createNamespace({ body: { metadata: { name: 'team-b' } } });
    await eventually(() => get('v1', 'Secret', 'regcred', 'team-b') !== undefined, 'the cloned Secret', 15_000);
    const copy = get('v1', 'Secret', 'regcred', 'team-b')!;
    expect(copy.data).toEqual({ token: 'c2VjcmV0' });
    expect(copy.metadata.labels).toMatchObject({
      'generate.kyverno.io/source-name': 'regcred',
      'generate.kyverno.io/source-namespace': 'default',
    });
    // The trigger's report: a pass naming the copy, owned by the Namespace.
    const uid = get('v1', 'Namespace', 'team-b')!.metadata.uid;
    const reports = () =>
      (cluster.apiServer.list('reports.kyverno.io/v1', 'ClusterEphemeralReport') as Obj[]).filter(
        (report) =>
          report.metadata.labels?.['audit.kyverno.io/resource.uid'] === uid &&
          report.metadata.labels?.['cpol.kyverno.io/sync-regcred'] !== undefined,
      );
    await eventually(() => reports().length > 0, 'the trigger report', 10_000);
    const [report] = reports() as [Obj];
    expect(report.metadata.labels).toMatchObject({ 'audit.kyverno.io/source': 'background-scan' });
    expect(report.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Namespace', name: 'team-b', uid }]);
    expect(report.spec.results).toMatchObject([
      {
        policy: 'sync-regcred',
        rule: 'clone-regcred',
        result: 'pass',
        properties: { 'generated-resources': '/v1, Kind=Secret Name=regcred Namespace=team-b' },
      },
    ]);
  }, 30_000);

  it('patches an existing ConfigMap when a mutate-existing rule is triggered, and says so in an Event', async () => {
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop' },
      data: { mode: 'a' },
    });
    await cluster.createClusterPolicy(
      clusterPolicy('stamp-settings', {
        rules: [
          {
            name: 'stamp',
            match: { any: [{ resources: { kinds: ['Secret'], namespaces: ['shop'] } }] },
            mutate: {
              targets: [
                {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  name: 'settings',
                  namespace: '{{request.object.metadata.namespace}}',
                },
              ],
              patchStrategicMerge: { metadata: { labels: { 'last-secret': '{{request.object.metadata.name}}' } } },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'secrets');
    await cluster.core.createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'api-key' } } });
    await eventually(
      () => get('v1', 'ConfigMap', 'settings', 'shop')?.metadata.labels?.['last-secret'] === 'api-key',
      'the ConfigMap patched',
      15_000,
    );
    expect(get('v1', 'ConfigMap', 'settings', 'shop')!.data).toEqual({ mode: 'a' });
    await eventually(
      () =>
        (cluster.apiServer.list('events.k8s.io/v1', 'Event', 'default') as Obj[]).some(
          (event) =>
            event.reportingController === 'kyverno-mutate' &&
            event.reason === 'PolicyApplied' &&
            event.regarding?.name === 'stamp-settings' &&
            event.related?.name === 'settings',
        ),
      'the mutate-existing Event',
      10_000,
    );
  }, 30_000);

  it('generates when a trigger is deleted, for a rule that matches DELETE', async () => {
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'attic' } });
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'marker', namespace: 'attic' } });
    await cluster.createClusterPolicy(
      clusterPolicy('on-delete', {
        rules: [
          {
            name: 'tombstone',
            match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['marker'], operations: ['DELETE'] } }] },
            generate: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'tombstone',
              namespace: '{{request.object.metadata.namespace}}',
              data: { data: { deleted: '{{request.object.metadata.name}}' } },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    await cluster.core.deleteNamespacedConfigMap({ name: 'marker', namespace: 'attic' });
    await eventually(
      () => get('v1', 'ConfigMap', 'tombstone', 'attic') !== undefined,
      'the tombstone ConfigMap',
      15_000,
    );
    expect(get('v1', 'ConfigMap', 'tombstone', 'attic')!.data).toEqual({ deleted: 'marker' });
  }, 30_000);

  it('processes every request on the leader only', async () => {
    const follower = replicas.find((replica) => replica !== leader())!;
    expect(await processed(follower)).toBe(0);
    expect(await processed(leader()!)).toBeGreaterThanOrEqual(3);
    const policies = cluster.apiServer.list('networking.k8s.io/v1', 'NetworkPolicy', 'team-a') as Obj[];
    expect(policies).toHaveLength(1);
  });
});
