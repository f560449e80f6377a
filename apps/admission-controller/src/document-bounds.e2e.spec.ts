/**
 * Issue 32's copy chain through the embedded cluster: a tenant's namespaced mutate Policy copies
 * /data into itself 40 times. Unbounded, the document doubles per operation and the controller dies
 * of heap exhaustion (or its review worker does). Bounded, the rule ends in an error naming the
 * policy and rule, the process (and worker) stays up, unrelated reviews are answered, and RSS grows
 * by a few MiB at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { PolicyCache } from '@edict/policy';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { ReviewWorkers } from './workers/review-workers';
import { apiErrorMessage, waitForWebhook } from '@edict/controller-runtime/testing';

/**
 * What the attack may add to the process's RSS. The chart's memory limit for the admission
 * controller is 384 Mi (charts/edict/values.yaml) and the controller idles near 270 MB; this test
 * process also holds the test runner, the API server and, with a worker, a TypeScript compiler, so
 * the growth is what is asserted. Unbounded, the chain asks for gigabytes.
 */
const RSS_GROWTH_ALLOWED = 64 * 1024 * 1024;

const copyChain = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i + 1}` }));

const tenantPolicy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'Policy',
  metadata: { name: 'grow', namespace: 'team-a' },
  spec: {
    rules: [
      {
        name: 'double',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        mutate: { patchesJson6902: JSON.stringify(copyChain) },
      },
    ],
  },
};

const configMap = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { a: 'x'.repeat(1024) },
});

describe.each([
  ['in process', '0'],
  ['in a review worker', '1'],
])('a JSON-patch copy chain, evaluated %s', (_, webhookWorkers) => {
  let cluster: E2eCluster;
  let controller: RunningController;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica({ webhookWorkers });
    if (webhookWorkers !== '0') {
      const workers = controller.app.get(ReviewWorkers);
      await eventually(() => workers.size === 1, 'the review worker to load', 60_000);
    }
    for (const name of ['team-a', 'team-b'])
      await cluster.core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    await cluster.custom.createNamespacedCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      namespace: 'team-a',
      plural: 'policies',
      body: tenantPolicy,
    });
    const cache = controller.app.get(PolicyCache);
    await eventually(() => cache.policies().some((policy) => policy.name === 'grow'), 'the tenant policy cached');
    await waitForWebhook(cluster.apiServer, 'MutatingWebhookConfiguration', 'mutate.edict.svc-fail', 'configmaps');
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('ends in a rule error naming policy and rule; the process stays up and answers other reviews', async () => {
    const workers = webhookWorkers === '0' ? undefined : controller.app.get(ReviewWorkers);
    const before = workers?.counts();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const error = await cluster.core
      .createNamespacedConfigMap({ namespace: 'team-a', body: configMap('victim', 'team-a') })
      .catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    // A mutate rule error under failure policy Fail blocks the request, naming the policy and rule.
    const message = apiErrorMessage(error);
    expect(message).toMatch(
      /denied the request: mutation policy grow error: failed to apply policy grow rules \[double: the resource after JSON-patch operation \d+ \(copy \/data\/x\d+\) exceeds the 3 MiB document size limit\]/,
    );
    // Generous on a loaded machine: unbounded, the review never finishes.
    expect(elapsed).toBeLessThan(9_000);

    // An unrelated review in another namespace is answered at once.
    const unrelatedStarted = performance.now();
    const admitted = await cluster.core.createNamespacedConfigMap({
      namespace: 'team-b',
      body: configMap('bystander', 'team-b'),
    });
    expect(admitted.metadata?.name).toBe('bystander');
    expect(performance.now() - unrelatedStarted).toBeLessThan(5_000);

    if (workers && before) {
      // Both reviews were decided by the same live worker, not by failure policy after a crash.
      expect(workers.size).toBe(1);
      expect(workers.counts().byWorkers - before.byWorkers).toBe(2);
    }
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(RSS_GROWTH_ALLOWED);
  }, 30_000);
});
