/**
 * Review workers end to end: the API server's webhook calls reach a controller with a review worker,
 * which decides them from the body's text it was sent, with the answers the in-process path gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { ReviewWorkers } from './workers/review-workers';
import { apiErrorMessage, requireLabelPolicy, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

describe('review workers end to end', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  let workers: ReviewWorkers;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica({ webhookWorkers: '1' });
    workers = controller.app.get(ReviewWorkers);
    await eventually(() => workers.size === 1, 'the review worker to load', 20_000);
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('a worker blocks a Pod without the label and admits one with it', async () => {
    const before = workers.counts();
    const error = await cluster.core
      .createNamespacedPod({ namespace: 'default', body: testPod('no-team') })
      .catch((e: unknown) => e);
    expect(apiErrorMessage(error)).toContain('require-team:');
    const admitted = await cluster.core.createNamespacedPod({
      namespace: 'default',
      body: testPod('with-team', { team: 'a' }),
    });
    expect(admitted.metadata?.name).toBe('with-team');
    const after = workers.counts();
    expect(after.byWorkers - before.byWorkers).toBe(2);
    expect(after.inProcess).toBe(before.inProcess);
  });
});
