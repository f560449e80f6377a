/**
 * Scenario `updaterequests`: a generate ClusterPolicy (a default-deny NetworkPolicy per Namespace)
 * and Namespaces created through the API server in bursts (`perSecond` at once, every second),
 * while admission replicas are SIGKILLed one after another, each a few ms into a burst so that
 * reviews are in flight and answered ones have their after-admission work pending (each replaced
 * as a Deployment would). Pod CREATE reviews at `podReviewsPerSecond` run alongside, as a busy
 * cluster's do: their audits (the 17 Pod Security policies) keep an after-admission backlog, in
 * which an UpdateRequest computed after the answer would wait, and die with its replica. A create that fails because
 * its webhook call died with the replica is retried under the same name, as a client would. Once
 * the load ends and the background controller settles, every Namespace that exists must have its
 * NetworkPolicy: one missing is an UpdateRequest lost. The background controller keeps running
 * (its own faults are the leaders scenario's).
 */
import { request } from 'node:http';
import type { JsonObject } from '@edict/foundation';
import { ChaosCluster } from './chaos-cluster';
import type { ControllerProcess } from './controller-process';
import { ReviewLoad } from './review-load';
import type { GeneratedCoverage } from './cluster';
import { settle, sleep, timeUntil } from './settle';

/** The Namespaces the load creates: `<prefix><n>`. */
export const UR_NAMESPACE_PREFIX = 'chaos-ns-';
/** The Namespace that shows the policy reached the webhook before the load. */
const PROBE_NAMESPACE = 'chaos-probe';
const POLICY_NAME = 'default-deny';
const ADMISSION_REPLICAS = 2;

export interface UpdateRequestFaultSettings {
  /** Namespace creates started per second. */
  perSecond: number;
  loadSeconds: number;
  /** SIGKILLs spread over the load. */
  kills: number;
  /** Pod CREATE reviews per second alongside (0: none). */
  podReviewsPerSecond: number;
  settleTimeoutMs: number;
}

export interface UpdateRequestFaultRun {
  /** The load's Namespaces the cluster holds at the end. */
  namespacesCreated: number;
  /** Creates answered 201 (or 409 on a retry) to the client; a create stored whose answer came too late is not among them. */
  confirmedCreates: number;
  /** Create attempts that failed (the webhook call died with a replica, or no replica was ready) and were retried. */
  failedAttempts: number;
  /** Namespaces whose create never succeeded before the load's end (none expected). */
  gaveUp: number;
  kills: number;
  /** Pod CREATE reviews sent alongside. */
  podReviews: number;
  /** How long Namespaces were being created, s (the replacements' start-up lengthens it). */
  loadSeconds: number;
  coverage: GeneratedCoverage;
  /** From the load's end until every Namespace had its NetworkPolicy (or the timeout), ms. */
  settleMs: number;
}

/** The generate policy: what the issue names, a security default every Namespace must get. */
export function defaultDenyPolicy(): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: POLICY_NAME },
    spec: {
      rules: [
        {
          name: 'deny-all',
          match: { any: [{ resources: { kinds: ['Namespace'], names: ['chaos-*'] } }] },
          generate: {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            name: POLICY_NAME,
            namespace: '{{request.object.metadata.name}}',
            synchronize: true,
            data: { spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
          },
        },
      ],
    },
  };
}

export async function runUpdateRequestFaults(settings: UpdateRequestFaultSettings): Promise<UpdateRequestFaultRun> {
  const cluster = await ChaosCluster.start([defaultDenyPolicy()]);
  try {
    await cluster.startReplica('background');
    // Replicas ready and serving, oldest first: the victims (one still starting is not killed).
    const serving: ControllerProcess[] = [];
    for (let i = 0; i < ADMISSION_REPLICAS; i++) serving.push(await cluster.startReplica('admission'));
    await cluster.awaitWebhookConfiguration();
    await awaitGenerateWebhook(cluster);

    const pods =
      settings.podReviewsPerSecond > 0
        ? await ReviewLoad.start(cluster, settings.podReviewsPerSecond, settings.loadSeconds * 2)
        : undefined;
    await pods?.begin();
    const load = new NamespaceLoad(cluster.url, settings.perSecond);
    const loadStarted = performance.now();
    load.start();
    const period = (settings.loadSeconds * 1000) / (settings.kills + 1);
    let kills = 0;
    const replacements: Promise<unknown>[] = [];
    for (let round = 0; round < settings.kills; round++) {
      await sleep(period);
      // As a rolling fault, not an outage: a replica keeps serving while the next one is killed.
      await timeUntil(async () => serving.filter((replica) => replica.running).length >= 2, 180_000, 'a replacement');
      const victim = serving.find((replica) => replica.running)!;
      await load.nextBurst();
      await sleep(5 + Math.random() * 45);
      cluster.stop(victim, 'SIGKILL');
      await victim.exited;
      kills += 1;
      // The Deployment's replacement, not waited for (its start-up would set the pace); the dead
      // one leaves the Service when its probes fail.
      replacements.push(cluster.startReplica('admission').then((replica) => serving.push(replica)));
    }
    await sleep(period);
    await Promise.all(replacements);
    const tally = await load.finish(60_000);
    const podTally = await pods?.finish();
    await pods?.stop();
    const ended = performance.now();
    const loadSeconds = (ended - loadStarted) / 1000;
    const coverage = await settle(
      () => cluster.api.call<GeneratedCoverage>('generated-coverage', coverageQuery(UR_NAMESPACE_PREFIX)),
      (value) => value.missingCount === 0 && value.namespaces >= tally.created,
      { quietMs: 45_000, timeoutMs: settings.settleTimeoutMs, intervalMs: 1_000 },
    );
    return {
      namespacesCreated: coverage.value.namespaces,
      confirmedCreates: tally.created,
      failedAttempts: tally.failedAttempts,
      gaveUp: tally.gaveUp,
      kills,
      podReviews: podTally?.sent ?? 0,
      loadSeconds,
      coverage: coverage.value,
      settleMs: performance.now() - ended,
    };
  } finally {
    await cluster.close();
  }
}

function coverageQuery(prefix: string) {
  return {
    prefix,
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    name: POLICY_NAME,
  };
}

/** The generate policy in the webhook configuration: Namespaces are sent to the webhook. */
async function awaitGenerateWebhook(cluster: ChaosCluster): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const coverage = await cluster.api.call<GeneratedCoverage>('generated-coverage', coverageQuery(PROBE_NAMESPACE));
    if (coverage.namespaces === 0) await createNamespace(cluster.url, PROBE_NAMESPACE).catch(() => undefined);
    else if (coverage.missingCount === 0) return;
    await sleep(500);
  }
  throw new Error('the generate policy never reached the webhook: no NetworkPolicy for the probe Namespace');
}

/** Namespaces `<prefix><n>`, a burst of `perSecond` every second; a failed create is retried under its name until it is stored. */
class NamespaceLoad {
  private readonly pending = new Set<Promise<void>>();
  private readonly burstWaiters: Array<() => void> = [];
  private timer?: NodeJS.Timeout;
  private next = 0;
  private stopping = false;
  private created = 0;
  private failedAttempts = 0;
  private gaveUp = 0;

  constructor(
    private readonly url: string,
    private readonly perSecond: number,
  ) {}

  start(): void {
    const burst = () => {
      for (let i = 0; i < this.perSecond; i++) this.launch(`${UR_NAMESPACE_PREFIX}${this.next++}`);
      for (const resolve of this.burstWaiters.splice(0)) resolve();
    };
    burst();
    this.timer = setInterval(burst, 1_000);
  }

  /** Resolves when the next burst has been sent. */
  nextBurst(): Promise<void> {
    return new Promise((resolve) => this.burstWaiters.push(resolve));
  }

  /** Stops starting creates; waits (at most `graceMs`) for the ones still retrying. */
  async finish(graceMs: number): Promise<{ created: number; failedAttempts: number; gaveUp: number }> {
    clearInterval(this.timer);
    const deadline = performance.now() + graceMs;
    while (this.pending.size > 0 && performance.now() < deadline) await sleep(100);
    this.stopping = true;
    await Promise.all([...this.pending]);
    return { created: this.created, failedAttempts: this.failedAttempts, gaveUp: this.gaveUp };
  }

  private launch(name: string): void {
    const work = this.createUntilStored(name).finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  private async createUntilStored(name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await createNamespace(this.url, name);
        this.created += 1;
        return;
      } catch (error) {
        if ((error as { status?: number }).status === 409) {
          this.created += 1; // stored by an attempt whose answer was lost
          return;
        }
        this.failedAttempts += 1;
        if (this.stopping) {
          this.gaveUp += 1;
          return;
        }
        await sleep(Math.min(200 * 2 ** attempt, 2_000));
      }
    }
  }
}

function createNamespace(url: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(
      new URL('/api/v1/namespaces', url),
      { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 30_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode === 201) return resolve();
          reject(
            Object.assign(new Error(`${response.statusCode} ${body.slice(0, 200)}`), { status: response.statusCode }),
          );
        });
      },
    );
    call.on('timeout', () => call.destroy(new Error('no answer within 30 s')));
    call.on('error', reject);
    call.end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  });
}
