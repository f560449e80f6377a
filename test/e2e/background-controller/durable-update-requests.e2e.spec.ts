/**
 * No UpdateRequest is lost between the admission controller and the background controller: a
 * trigger's request is stored before its review is answered, so an after-admission queue of one
 * that overflows under a burst drops none of them, and a background controller that was down while
 * the triggers were admitted finds every request when it starts and generates every downstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { ReportsMetrics } from '@edict/reports';
import type { RunningController } from '@edict/admission-controller';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BURST = 40;

describe('UpdateRequests survive a full after-admission queue and a background controller that is down', () => {
  let cluster: E2eCluster;
  let admission: RunningController;
  let background: RunningHttpController | undefined;
  const names = Array.from({ length: BURST }, (_, i) => `burst-${i}`);
  const updateRequests = () =>
    cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace) as Obj[];
  const networkPolicy = (namespace: string) =>
    cluster.apiServer.get('networking.k8s.io/v1', 'NetworkPolicy', 'default-deny', namespace) as Obj | undefined;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    // The after-admission job of every review but one or two is dropped under a burst.
    admission = await cluster.startReplica({ auditQueueSize: 1, auditWorkers: 1 });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    await cluster.createClusterPolicy(
      clusterPolicy('default-deny', {
        rules: [
          {
            name: 'deny-all',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['burst-*'] } }] },
            generate: {
              apiVersion: 'networking.k8s.io/v1',
              kind: 'NetworkPolicy',
              name: 'default-deny',
              namespace: '{{request.object.metadata.name}}',
              synchronize: true,
              data: { spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
            },
          },
          {
            // An audit on the same kind, so that every review has after-admission work to queue.
            name: 'audit-owner',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['burst-*'] } }] },
            validate: { message: 'an owner label', pattern: { metadata: { labels: { owner: '?*' } } } },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'namespaces');
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('(a) a burst over a queue of one: every admitted Namespace has its UpdateRequest once its create returns', async () => {
    const created = await Promise.all(
      names.map((name) => cluster.core.createNamespace({ body: { metadata: { name } } })),
    );
    // No waiting for the after-admission work: the requests were stored before the answers.
    const byTrigger = new Map(updateRequests().map((ur) => [ur.spec.resource?.uid, ur]));
    for (const namespace of created) {
      const ur = byTrigger.get(namespace.metadata!.uid);
      expect(ur, `the UpdateRequest of ${namespace.metadata!.name}`).toBeDefined();
      expect(ur!.spec).toMatchObject({ requestType: 'generate', policy: 'default-deny', rule: 'deny-all' });
    }
    expect(updateRequests()).toHaveLength(BURST);
    const metrics = await admission.app.get(ReportsMetrics).text();
    const dropped = Number(/^edict_audit_queue_dropped (\d+)$/m.exec(metrics)?.[1] ?? '0');
    expect(dropped, 'after-admission jobs dropped by the full queue').toBeGreaterThan(0);
    expect(metrics).toMatch(new RegExp(`^edict_update_requests_before_answer ${BURST}$`, 'm'));
  }, 60_000);

  it('(b) the background controller, down while they were admitted, generates every NetworkPolicy when it starts', async () => {
    expect(names.filter((name) => networkPolicy(name) !== undefined)).toEqual([]);
    background = await startTestBackground(cluster);
    await eventually(
      () => names.every((name) => networkPolicy(name) !== undefined),
      'a NetworkPolicy in every Namespace',
      30_000,
    );
    for (const name of names) {
      expect(networkPolicy(name)!.metadata.labels).toMatchObject({
        'generate.kyverno.io/trigger-uid': (cluster.apiServer.get('v1', 'Namespace', name) as JsonObject & Obj).metadata
          .uid,
      });
    }
    await eventually(() => updateRequests().length === 0, 'the processed UpdateRequests deleted', 15_000);
  }, 60_000);
});
