/**
 * Issue 32's copy chain in the background: a tenant's mutate-existing rule copies a target
 * ConfigMap's /data into itself 40 times. The UpdateRequest fails with the rule error naming the
 * rule and the bound, the target is left as it was, and the controller goes on processing others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const copyChain = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i + 1}` }));

function tenantPolicy(name: string, rule: string, mutate: Obj) {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'Policy',
    metadata: { name, namespace: 'team-a' },
    spec: {
      rules: [
        {
          name: rule,
          match: { any: [{ resources: { kinds: ['Secret'] } }] },
          mutate: {
            targets: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'team-a' }],
            ...mutate,
          },
        },
      ],
    },
  };
}

describe('background controller and the copy chain', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  const settings = () => cluster.apiServer.get('v1', 'ConfigMap', 'settings', 'team-a') as Obj | undefined;
  const updateRequests = () =>
    cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace) as unknown as Obj[];

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica({ omitEvents: [] });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    background = await startTestBackground(cluster, { leaseIdentity: 'background-a' });
    await eventually(() => background.app.get(LeaderService).isLeader(), 'the background leader');
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('fails the UpdateRequest with the rule error, leaves the target alone and goes on', async () => {
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'team-a' },
      data: { a: 'x'.repeat(1024) },
    } as JsonObject);
    for (const policy of [
      tenantPolicy('grow', 'double', { patchesJson6902: JSON.stringify(copyChain) }),
      tenantPolicy('stamp', 'label', {
        patchStrategicMerge: { metadata: { labels: { 'last-secret': '{{request.object.metadata.name}}' } } },
      }),
    ]) {
      await cluster.custom.createNamespacedCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        namespace: 'team-a',
        plural: 'policies',
        body: policy,
      });
    }
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'secrets');
    await cluster.core.createNamespacedSecret({ namespace: 'team-a', body: { metadata: { name: 'api-key' } } });

    await eventually(
      () =>
        updateRequests().some(
          (ur) => ur.spec?.policy === 'team-a/grow' && String(ur.status?.message ?? '').includes('document size limit'),
        ),
      'the copy chain UpdateRequest failed',
      20_000,
    );
    const failed = updateRequests().find((ur) => ur.spec?.policy === 'team-a/grow')!;
    expect(failed.status.state).toBe('Failed');
    expect(failed.status.message).toMatch(
      /failed to mutate existing resource, rule double, response error: the resource after JSON-patch operation \d+ \(copy \/data\/x\d+\) exceeds the 3 MiB document size limit/,
    );
    // The other tenant rule was processed by the same, live controller.
    await eventually(
      () => settings()?.metadata?.labels?.['last-secret'] === 'api-key',
      'the other rule applied',
      20_000,
    );
    expect(Object.keys(settings()!.data)).toEqual(['a']);
  }, 60_000);
});
