/**
 * Issue 32's escapes, replayed end to end through the in-memory API server, the admission
 * controller and the background controller: a namespaced Policy in team-a that accepted at
 * admission (the kind is a variable, or a target names no namespace) must not reach outside
 * team-a at run time.
 *  - a mutate-existing rule targeting ClusterPolicy require-team-label, triggered by a ConfigMap in
 *    team-a: the ClusterPolicy is unchanged, the UpdateRequest fails naming the rule;
 *  - a generate rule whose apiVersion/kind come from the trigger ConfigMap (kyverno.io/v1
 *    ClusterPolicy, v1 Namespace, rbac ClusterRole): no cluster-scoped object appears, while the
 *    same rule with a namespaced kind still generates in team-a;
 *  - a clone from another namespace is refused at admission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { PolicyCache } from '@edict/policy';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { apiErrorMessage, requireLabelPolicy, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('tenant isolation: a namespaced Policy stays in its namespace', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const failedRequest = (policy: string) =>
    (cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace) as Obj[]).find(
      (request) => request.spec?.policy === policy && request.status?.state === 'Failed',
    );

  /** Creates the tenant's Policy through the API (the policy webhook validates it) and waits for both caches. */
  async function createTenantPolicy(name: string, rules: unknown[]): Promise<void> {
    await cluster.custom.createNamespacedCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      namespace: 'team-a',
      plural: 'policies',
      body: { apiVersion: 'kyverno.io/v1', kind: 'Policy', metadata: { name, namespace: 'team-a' }, spec: { rules } },
    });
    await eventually(
      () =>
        background.app
          .get(PolicyCache)
          .policies()
          .some((policy) => policy.name === name),
      `policy ${name} in the background cache`,
    );
  }

  beforeAll(async () => {
    cluster = await startE2eCluster();
    for (const name of ['team-a', 'team-b']) {
      cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as JsonObject);
    }
    await cluster.startReplica({ omitEvents: [] });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    // Failed requests stay Failed long enough to be read.
    background = await startTestBackground(cluster, { omitEvents: [], retryDelayMs: 60_000, maxRetries: 10 });
    await eventually(() => background.app.get(LeaderService).isLeader(), 'the background leader');
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team-label', 'team'));
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('a mutate-existing rule cannot patch a ClusterPolicy: it stays unchanged and the rule errors', async () => {
    const before = structuredClone(get('kyverno.io/v1', 'ClusterPolicy', 'require-team-label')!);
    await createTenantPolicy('open-the-gate', [
      {
        name: 'relax',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        mutate: {
          targets: [{ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'require-team-label' }],
          patchStrategicMerge: { spec: { validationFailureAction: 'Audit', admission: false } },
        },
      },
    ]);
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'configmaps');
    await cluster.core.createNamespacedConfigMap({ namespace: 'team-a', body: { metadata: { name: 'trigger' } } });
    await eventually(() => failedRequest('team-a/open-the-gate') !== undefined, 'the UpdateRequest failed', 15_000);
    expect(failedRequest('team-a/open-the-gate')!.status.message).toContain(
      'a Policy in namespace "team-a" may only reach namespaced kinds, and kyverno.io/v1/ClusterPolicy is cluster-scoped',
    );
    const after = get('kyverno.io/v1', 'ClusterPolicy', 'require-team-label')!;
    // Only the status writer touches it (resourceVersion moves with status updates).
    expect(after.spec).toEqual(before.spec);
    // And it still denies: a Pod without the label in another namespace is refused.
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    const denied = await cluster.core
      .createNamespacedPod({ namespace: 'team-b', body: testPod('unlabelled', {}, 'team-b') as never })
      .then(
        () => 'admitted',
        (error: unknown) => apiErrorMessage(error),
      );
    expect(denied).toContain('require-team-label');
    expect(denied).toContain('denied the request');
  }, 30_000);

  it('a generate rule with a variable kind creates no cluster-scoped object, and still generates a namespaced one', async () => {
    await createTenantPolicy('mint', [
      {
        name: 'from-data',
        match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['order-*'] } }] },
        generate: {
          apiVersion: '{{request.object.data.av}}',
          kind: '{{request.object.data.k}}',
          name: 'minted-{{request.object.metadata.name}}',
          namespace: 'team-a',
          data: {
            spec: {
              validationFailureAction: 'Enforce',
              rules: [
                {
                  name: 'deny-all',
                  match: { any: [{ resources: { kinds: ['Pod'] } }] },
                  validate: { message: 'no', deny: {} },
                },
              ],
            },
            rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
          },
        },
      },
    ]);
    const orders: [string, string, string][] = [
      ['order-policy', 'kyverno.io/v1', 'ClusterPolicy'],
      ['order-namespace', 'v1', 'Namespace'],
      ['order-role', 'rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['order-ok', 'v1', 'ConfigMap'],
    ];
    for (const [name, av, k] of orders) {
      await cluster.core.createNamespacedConfigMap({
        namespace: 'team-a',
        body: { metadata: { name }, data: { av, k } },
      });
    }
    // The namespaced kind is generated: the pipeline works, so the refusals below are not vacuous.
    await eventually(() => get('v1', 'ConfigMap', 'minted-order-ok', 'team-a') !== undefined, 'the ConfigMap', 15_000);
    await eventually(
      () =>
        (cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace) as Obj[]).filter(
          (request) => request.spec?.policy === 'team-a/mint' && request.status?.state === 'Failed',
        ).length === 3,
      'three failed UpdateRequests',
      15_000,
    );
    for (const [name, av, k] of orders.slice(0, 3)) {
      expect(get(av, k, `minted-${name}`)).toBeUndefined();
      expect(get(av, k, `minted-${name}`, 'team-a')).toBeUndefined();
    }
    const messages = (cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace) as Obj[])
      .filter((request) => request.spec?.policy === 'team-a/mint')
      .map((request) => request.status?.message ?? '');
    for (const type of ['kyverno.io/v1/ClusterPolicy', 'v1/Namespace', 'rbac.authorization.k8s.io/v1/ClusterRole']) {
      expect(
        messages.some(
          (message) => message.includes('rule from-data failed') && message.includes(`${type} is cluster-scoped`),
        ),
      ).toBe(true);
    }
    expect((cluster.apiServer.list('kyverno.io/v1', 'ClusterPolicy') as Obj[]).map((p) => p.metadata?.name)).toEqual([
      'require-team-label',
    ]);
  }, 45_000);

  it('a clone from another namespace is refused when the Policy is created', async () => {
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'team-b' },
      data: { password: 'c2VjcmV0' },
    } as JsonObject);
    const attempt = cluster.custom.createNamespacedCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      namespace: 'team-a',
      plural: 'policies',
      body: {
        apiVersion: 'kyverno.io/v1',
        kind: 'Policy',
        metadata: { name: 'steal', namespace: 'team-a' },
        spec: {
          rules: [
            {
              name: 'copy',
              match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
              generate: {
                apiVersion: 'v1',
                kind: 'Secret',
                name: 'db',
                namespace: 'team-a',
                clone: { namespace: '{{request.object.data.from}}', name: 'db' },
              },
            },
          ],
        },
      },
    });
    const message = await attempt.then(
      () => 'accepted',
      (error: unknown) => apiErrorMessage(error),
    );
    expect(message).toContain('a namespaced policy cannot clone resources from other namespaces');
    expect(get('v1', 'Secret', 'db', 'team-a')).toBeUndefined();
  }, 30_000);
});
