/**
 * The metric cardinality attack of issue 32, replayed: anything that reaches the webhook port sends
 * 20,000 reviews straight to it (not through the API server), each naming a namespace and (half of
 * them) a kind nobody has. The metrics stay bounded (size and series), and the made-up namespaces
 * cost no more live API reads than the read budget allows. Figures are printed, not asserted.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_READ_BURST, LIVE_READS_PER_SECOND } from './cluster/namespace-labels.service';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  E2E_SERVER_NAME,
  httpsCall,
  requireLabelPolicy,
  testPod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

const REVIEWS = 20_000;
const CONCURRENCY = 16;

function review(index: number) {
  const namespace = `attacker-${index}`;
  const madeUpKind = index % 2 === 1;
  const kind = madeUpKind ? `Kind${index}` : 'Pod';
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `u-${index}`,
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource: madeUpKind ? `kind${index}s` : 'pods' },
      operation: 'CREATE',
      namespace,
      name: 'x',
      userInfo: { username: 'attacker' },
      object: madeUpKind
        ? { apiVersion: 'v1', kind, metadata: { name: 'x', namespace } }
        : testPod('x', { team: 'a' }, namespace),
    },
  };
}

/** Series lines of one metric (not its HELP/TYPE lines). */
function seriesOf(text: string, name: string): number {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`)).length;
}

describe('metrics under reviews naming made-up namespaces and kinds', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  let ca: string;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica({ maxQueued: 4096 });
    ca = controller.caBundlePem();
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it(`stay bounded after ${REVIEWS} reviews, with a bounded number of namespace reads`, async () => {
    const metrics = async () => (await httpsCall(controller.port, ca, '/metrics', {})).body;
    // One review from a real namespace first: its labels are kept.
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca, servername: E2E_SERVER_NAME });
    const send = (body: unknown) =>
      new Promise<number>((resolve, reject) => {
        const payload = Buffer.from(JSON.stringify(body));
        const request = httpsRequest(
          {
            host: '127.0.0.1',
            port: controller.port,
            path: '/validate/fail',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': payload.length },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end(payload);
      });
    const legitimate = review(0);
    legitimate.request.namespace = 'default';
    legitimate.request.object = testPod('x', { team: 'a' }, 'default');
    expect(await send(legitimate)).toBe(200);
    const before = await metrics();
    const rssBefore = process.memoryUsage().rss;

    cluster.apiServer.requests.start();
    const started = performance.now();
    let next = 1;
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next <= REVIEWS) {
          const status = await send(review(next++));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    cluster.apiServer.requests.stop();
    agent.destroy();

    const after = await metrics();
    const namespaceReads = cluster.apiServer.requests
      .requests({ method: 'GET', pathPrefix: '/api/v1/namespaces/' })
      .filter((entry) => /^\/api\/v1\/namespaces\/attacker-\d+$/.test(entry.path)).length;
    console.log(
      `${REVIEWS} reviews in ${seconds.toFixed(1)} s: /metrics ${(before.length / 1024).toFixed(0)} KB -> ` +
        `${(after.length / 1024).toFixed(0)} KB; kyverno_admission_requests_total series ` +
        `${seriesOf(before, 'kyverno_admission_requests_total')} -> ${seriesOf(after, 'kyverno_admission_requests_total')}; ` +
        `kyverno_policy_results_total series ${seriesOf(before, 'kyverno_policy_results_total')} -> ` +
        `${seriesOf(after, 'kyverno_policy_results_total')}; live namespace reads ${namespaceReads}; ` +
        `test process RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
    );

    expect([...statuses.keys()]).toEqual([200]);
    expect(after).not.toMatch(/attacker-\d|Kind\d/);
    expect(after).toContain('resource_kind="Pod",resource_namespace="default"');
    // Made-up kinds and namespaces fold into `unknown`: a handful of label sets, not thousands.
    expect(seriesOf(after, 'kyverno_admission_requests_total')).toBeLessThanOrEqual(8);
    expect(seriesOf(after, 'kyverno_policy_results_total')).toBeLessThanOrEqual(8);
    expect(after.length).toBeLessThan(before.length + 64 * 1024);
    // At most the budget's burst and rate over the run (and far below one read per review).
    expect(namespaceReads).toBeLessThanOrEqual(LIVE_READ_BURST + Math.ceil(seconds + 1) * LIVE_READS_PER_SECOND);
    expect(namespaceReads).toBeLessThan(REVIEWS / 10);
  }, 300_000);
});
