/**
 * Issue 32, "one tenant's slow policy stalls everyone", replayed through the embedded cluster: a
 * namespaced Policy in team-a with a nested foreach over every pair of a Pod's containers, three
 * 250-container Pods created in team-a at once (unbounded, each takes ~14 s of CPU); meanwhile an
 * unrelated Pod in team-b (another namespace, another Policy) is answered and /healthz answers,
 * while all of the tenant's reviews still run (the structural guarantee: they were not queued
 * behind them); then the tenant's reviews end by their failure policy at the webhook's deadline.
 * Latencies are figures, not asserts: `npm run chaos -- --only tenants` measures them. Once
 * in-process (the reference path) and once with a review worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { PolicyCache } from '@edict/policy';
import { bigPod, nestedForeachPolicy, requireOwnerPolicy } from '@edict/admission/testing';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { apiErrorMessage, httpsCall, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

/**
 * Short enough for a spec; the slow Pods' reviews end here less the answer margin (10%: 800 ms,
 * room for a loaded machine between the webhook's answer and the API server's own timeout).
 */
const WEBHOOK_TIMEOUT_SECONDS = 8;
for (const webhookWorkers of ['0', '1']) {
  describe(`a tenant's slow policy does not stall other namespaces (review workers: ${webhookWorkers})`, () => {
    let cluster: E2eCluster;
    let controller: RunningController;

    beforeAll(async () => {
      cluster = await startE2eCluster();
      controller = await cluster.startReplica({ webhookWorkers, webhookTimeoutSeconds: WEBHOOK_TIMEOUT_SECONDS });
      for (const name of ['team-a', 'team-b'])
        cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      for (const policy of [nestedForeachPolicy('every-pair', 'team-a'), requireOwnerPolicy('team-b')])
        await cluster.custom.createNamespacedCustomObject({
          group: 'kyverno.io',
          version: 'v1',
          namespace: policy.metadata.namespace!,
          plural: 'policies',
          body: policy,
        });
      const cache = controller.app.get(PolicyCache);
      await eventually(
        () => ['team-a/every-pair', 'team-b/require-owner'].every((key) => cache.policies().some((p) => p.key === key)),
        'both Policies in the cache',
      );
      await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    }, 60_000);

    afterAll(async () => {
      await cluster?.stop();
    });

    it('answers an unrelated review and /healthz while the slow reviews still run', async () => {
      const ca = controller.caBundlePem();
      let slowAnswered = 0;
      const slow = [1, 2, 3].map((i) =>
        cluster.core
          .createNamespacedPod({ namespace: 'team-a', body: bigPod(`big-${i}`, 'team-a', 250) })
          .then(
            () => 'admitted',
            (error: unknown) => apiErrorMessage(error),
          )
          .finally(() => (slowAnswered += 1)),
      );
      // The slow reviews are under way (their evaluation takes seconds).
      await new Promise((resolve) => setTimeout(resolve, 500));

      const health = await httpsCall(controller.port, ca, '/healthz');
      const admitted = await cluster.core.createNamespacedPod({
        namespace: 'team-b',
        body: testPod('unrelated', { owner: 'b' }, 'team-b'),
      });
      const denied = await cluster.core
        .createNamespacedPod({ namespace: 'team-b', body: testPod('no-owner', {}, 'team-b') })
        .catch((error: unknown) => apiErrorMessage(error));
      // Answered while all of the tenant's reviews still ran: not queued behind them.
      expect(slowAnswered).toBe(0);
      expect(health.status).toBe(200);
      expect(admitted.metadata?.name).toBe('unrelated');
      expect(denied).toContain('an owner label is required');

      // The tenant's reviews end at their deadline by the failure policy (Fail: denied), not after
      // ~14 s each of evaluation.
      const answers = await Promise.all(slow);
      for (const answer of answers) expect(answer).toMatch(/policy evaluation did not finish within \d+ms/);
    }, 60_000);
  });
}
