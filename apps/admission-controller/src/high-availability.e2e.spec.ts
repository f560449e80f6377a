/**
 * High availability end to end, against the in-memory API server: the monitor brings deleted
 * webhook configurations back; two replicas both serve reviews while only the leader writes the
 * certificate Secrets and the webhook configurations (seen from the API server's side: each
 * replica's client impersonates its own user, and the server's request log says who wrote what);
 * when the leader stops, the other takes over (at once on a graceful stop); scaled to zero, a stopping replica takes the
 * configurations along.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { DEFAULT_WEBHOOK_NAMES, HEARTBEAT_ANNOTATION } from '@edict/webhook-config';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  apiErrorMessage,
  E2E_NAMESPACE as NAMESPACE,
  E2E_SERVER_NAME,
  postJson,
  publishedWebhook,
  requireLabelPolicy,
  testPod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

const ADMISSION_API = 'admissionregistration.k8s.io/v1';
const VALIDATING = 'ValidatingWebhookConfiguration';
const MUTATING = 'MutatingWebhookConfiguration';
const RESOURCE_VALIDATING = DEFAULT_WEBHOOK_NAMES.resourceValidating;
const RESOURCE_MUTATING = DEFAULT_WEBHOOK_NAMES.resourceMutating;
const SECRETS_PATH = `/api/v1/namespaces/${NAMESPACE}/secrets`;
const WEBHOOKS_PATH = `/apis/${ADMISSION_API}/`;
/** Short enough for a spec; the default (30 s) is asserted in the config's spec. */
const MONITOR_INTERVAL_MS = 1_000;
/** A protocol deadline with generous slack for a loaded machine. */
const WITHIN_MONITOR_INTERVAL = 3 * MONITOR_INTERVAL_MS + 2_000;

/** The cluster's kubeconfig acting as `user` (kube's impersonation), so the API server tells replicas apart. */
function kubeconfigAs(kubeconfig: string, user: string): string {
  const document = parse(kubeconfig) as { users: Array<{ user: Record<string, unknown> }> };
  for (const entry of document.users) entry.user.as = user;
  return stringify(document);
}

/** A replica with its own client user and lease identity, both `name`. */
function startNamedReplica(cluster: E2eCluster, name: string, overrides: Record<string, unknown> = {}) {
  return cluster.startReplica({
    kubeconfig: kubeconfigAs(cluster.kubeconfig, name),
    leaseIdentity: name,
    webhookMonitorIntervalMs: MONITOR_INTERVAL_MS,
    ...overrides,
  });
}

function exists(cluster: E2eCluster, kind: string, name: string): boolean {
  return cluster.apiServer.get(ADMISSION_API, kind, name) !== undefined;
}

function podReview(name: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `review-${name}`,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name,
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'tester', groups: ['system:authenticated'] },
      object: testPod(name),
      dryRun: false,
    },
  };
}

/** One review over `agent` (kept alive): the answer's status and its Connection header. */
function keptAliveReview(replica: RunningController, agent: Agent, name: string) {
  const payload = JSON.stringify(podReview(name));
  return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const call = httpsRequest(
      {
        host: '127.0.0.1',
        port: replica.port,
        path: '/validate/fail',
        method: 'POST',
        ca: replica.caBundlePem(),
        servername: E2E_SERVER_NAME,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
        );
      },
    );
    call.on('error', reject);
    call.end(payload);
  });
}

interface ReviewAnswer {
  response: { uid: string; allowed: boolean; status?: { code?: number; message?: string } };
}

describe('a deleted webhook configuration', () => {
  let cluster: E2eCluster;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await startNamedReplica(cluster, 'replica-solo');
    await waitForWebhook(cluster.apiServer, VALIDATING, 'validate-policy.edict.svc');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('comes back within the monitor interval, validating and mutating, with the heartbeat', async () => {
    await eventually(() => exists(cluster, MUTATING, RESOURCE_MUTATING), 'the mutating configuration');
    cluster.apiServer.delete(ADMISSION_API, VALIDATING, RESOURCE_VALIDATING);
    cluster.apiServer.delete(ADMISSION_API, MUTATING, RESOURCE_MUTATING);
    expect(exists(cluster, VALIDATING, RESOURCE_VALIDATING)).toBe(false);

    await eventually(
      () => exists(cluster, VALIDATING, RESOURCE_VALIDATING) && exists(cluster, MUTATING, RESOURCE_MUTATING),
      'both configurations recreated by the monitor',
      WITHIN_MONITOR_INTERVAL,
    );
    await eventually(
      () => {
        const stored = cluster.apiServer.get(ADMISSION_API, VALIDATING, RESOURCE_VALIDATING);
        const annotations = (stored?.metadata as { annotations?: Record<string, string> }).annotations;
        return annotations?.[HEARTBEAT_ANNOTATION] !== undefined;
      },
      'the heartbeat stamped',
      WITHIN_MONITOR_INTERVAL,
    );
    // The policy validation webhook lives in its own configuration and comes back the same way.
    cluster.apiServer.delete(ADMISSION_API, VALIDATING, DEFAULT_WEBHOOK_NAMES.policyValidating);
    await waitForWebhook(
      cluster.apiServer,
      VALIDATING,
      'validate-policy.edict.svc',
      undefined,
      WITHIN_MONITOR_INTERVAL,
    );
  });
});

describe('two replicas', () => {
  let cluster: E2eCluster;
  let first: RunningController;
  let second: RunningController;
  const log = () => cluster.apiServer.requests;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    log().start();
    first = await startNamedReplica(cluster, 'replica-a');
    await eventually(() => first.app.get(LeaderService).isLeader(), 'replica-a leading');
    second = await startNamedReplica(cluster, 'replica-b');
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    await waitForWebhook(cluster.apiServer, VALIDATING, 'validate.edict.svc-fail', 'pods');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('both serve reviews with the Enforce decision, trusting the one CA', async () => {
    expect(second.caBundlePem()).toBe(first.caBundlePem());
    for (const [replica, name] of [
      [first, 'via-a'],
      [second, 'via-b'],
    ] as const) {
      const answer = await postJson<ReviewAnswer>(
        replica.port,
        replica.caBundlePem(),
        '/validate/fail',
        podReview(name),
      );
      expect(answer.status).toBe(200);
      expect(answer.body.response).toMatchObject({ uid: `review-${name}`, allowed: false });
      expect(answer.body.response.status?.message).toContain(
        `resource Pod/default/${name} was blocked due to the following policies`,
      );
      expect(answer.body.response.status?.message).toContain('require-team:');
    }
  });

  it('only the leader writes the certificate Secrets and the webhook configurations', async () => {
    expect(first.app.get(LeaderService).isLeader()).toBe(true);
    expect(second.app.get(LeaderService).isLeader()).toBe(false);
    const lease = cluster.apiServer.get('coordination.k8s.io/v1', 'Lease', 'edict-admission-controller', NAMESPACE);
    expect((lease?.spec as { holderIdentity?: string }).holderIdentity).toBe('replica-a');

    // Give the follower reasons to write: a deleted configuration, monitor ticks.
    await eventually(() => exists(cluster, MUTATING, RESOURCE_MUTATING), 'the mutating configuration');
    cluster.apiServer.delete(ADMISSION_API, MUTATING, RESOURCE_MUTATING);
    await eventually(() => exists(cluster, MUTATING, RESOURCE_MUTATING), 'recreated', WITHIN_MONITOR_INTERVAL);
    await new Promise((resolve) => setTimeout(resolve, MONITOR_INTERVAL_MS + 200)); // one more follower tick

    expect(log().writers({ pathPrefix: SECRETS_PATH, succeeded: true })).toEqual(['replica-a']);
    expect(log().writers({ pathPrefix: WEBHOOKS_PATH, succeeded: true })).toEqual(['replica-a']);
    // Not even an attempt from the follower, though it did talk to the API server all along.
    expect(log().writes({ pathPrefix: SECRETS_PATH, user: 'replica-b' })).toEqual([]);
    expect(log().writes({ pathPrefix: WEBHOOKS_PATH, user: 'replica-b' })).toEqual([]);
    expect(log().requests({ pathPrefix: SECRETS_PATH, user: 'replica-b' }).length).toBeGreaterThan(0);
  });

  it('when the leader stops, the other replica takes over and repairs a deleted configuration', async () => {
    await first.stop();
    await eventually(() => second.app.get(LeaderService).isLeader(), 'replica-b leading', 5_000);
    log().clear();

    cluster.apiServer.delete(ADMISSION_API, VALIDATING, RESOURCE_VALIDATING);
    await waitForWebhook(cluster.apiServer, VALIDATING, 'validate.edict.svc-fail', 'pods', WITHIN_MONITOR_INTERVAL);
    expect(log().writers({ pathPrefix: WEBHOOKS_PATH, succeeded: true })).toEqual(['replica-b']);
    expect(publishedWebhook(cluster.apiServer, VALIDATING, 'validate.edict.svc-fail')?.clientConfig?.caBundle).toBe(
      Buffer.from(second.caBundlePem()).toString('base64'),
    );

    // And it keeps enforcing through the API server's admission chain.
    const error = await cluster.core
      .createNamespacedPod({ namespace: 'default', body: testPod('after-takeover') })
      .catch((e: unknown) => e);
    expect(apiErrorMessage(error)).toContain('admission webhook "validate.edict.svc-fail" denied the request: ');
  });
});

describe('a leader stopping gracefully', () => {
  let cluster: E2eCluster;

  beforeAll(async () => {
    cluster = await startE2eCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('hands the Lease over before its shutdown delay, not after the drain', async () => {
    // A lease the follower could only take by waiting it out (10 s): a quick takeover means a release.
    const slow = { leaseDurationMs: 10_000, renewDeadlineMs: 8_000, retryPeriodMs: 2_000, shutdownDelayMs: 3_000 };
    const first = await startNamedReplica(cluster, 'leader-a', slow);
    await eventually(() => first.app.get(LeaderService).isLeader(), 'leader-a leading', 10_000);
    const second = await startNamedReplica(cluster, 'leader-b', slow);

    const stopping = first.stop();
    const started = performance.now();
    await eventually(() => second.app.get(LeaderService).isLeader(), 'leader-b leading', 2_500);
    // Still inside leader-a's shutdown delay: it is draining while leader-b already leads.
    expect(performance.now() - started).toBeLessThan(slow.shutdownDelayMs);
    await stopping;
    await second.stop();
  });

  it('closes kept-alive connections after each answer once stopping, so they dial the Service again', async () => {
    const replica = await startNamedReplica(cluster, 'closing', { shutdownDelayMs: 3_000 });
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await keptAliveReview(replica, agent, 'before')).toEqual({ status: 200, connection: 'keep-alive' });
      const stopping = replica.stop();
      // Inside the shutdown delay: still answered, but the connection is not kept.
      expect(await keptAliveReview(replica, agent, 'during')).toEqual({ status: 200, connection: 'close' });
      await stopping;
    } finally {
      agent.destroy();
    }
  });
});

describe('scaled to zero', () => {
  let cluster: E2eCluster;
  const DEPLOYMENT = 'edict-admission-controller';

  beforeAll(async () => {
    cluster = await startE2eCluster();
    cluster.apiServer.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: DEPLOYMENT, namespace: NAMESPACE },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'edict' } },
        template: { metadata: { labels: { app: 'edict' } }, spec: { containers: [{ name: 'c', image: 'edict' }] } },
      },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const configurations = () => [
    exists(cluster, VALIDATING, RESOURCE_VALIDATING),
    exists(cluster, MUTATING, RESOURCE_MUTATING),
    exists(cluster, VALIDATING, DEFAULT_WEBHOOK_NAMES.policyValidating),
    exists(cluster, VALIDATING, DEFAULT_WEBHOOK_NAMES.exceptionValidating),
  ];

  it('a replica stopping while the Deployment still has replicas keeps the configurations', async () => {
    const replica = await startNamedReplica(cluster, 'rolling', { deploymentName: DEPLOYMENT });
    await eventually(() => configurations().every(Boolean), 'all configurations published');
    await replica.stop();
    expect(configurations()).toEqual([true, true, true, true]);
  });

  it('the last replica stopping at replicas: 0 removes them', async () => {
    const replica = await startNamedReplica(cluster, 'last', { deploymentName: DEPLOYMENT });
    const deployment = cluster.apiServer.get('apps/v1', 'Deployment', DEPLOYMENT, NAMESPACE)!;
    cluster.apiServer.update({ ...deployment, spec: { ...(deployment.spec as object), replicas: 0 } });
    await replica.stop();
    expect(configurations()).toEqual([false, false, false, false]);
  });
});
