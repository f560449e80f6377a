/**
 * Issue 32's "one tenant's slow policy stalls everyone" as a chaos scenario: an admission replica
 * (its own process) behind the embedded API server, a namespaced Policy in team-a with a nested
 * foreach over every pair of a Pod's containers, and `slowPods` 250-container Pods created in team-a
 * at once (each far beyond the webhook timeout when unbounded). While they run, a labelled Pod is created in team-b
 * (another namespace, its own Policy) and /healthz is read every `intervalMs`; before them, the same
 * Pod's creation time alone is the baseline. Figures: each latency, and how the tenant's reviews ended.
 */
import { request as httpsRequest } from 'node:https';
import { bigPod, nestedForeachPolicy, requireOwnerPolicy } from '@edict/admission/testing';
import type { JsonObject } from '@edict/foundation';
import { apiPost } from './api-post';
import { ChaosCluster } from './chaos-cluster';

export interface TenantFairnessOptions {
  /** EDICT_WEBHOOK_WORKERS of the replica. */
  readonly workers: string;
  readonly slowPods: number;
  readonly containers: number;
  readonly intervalMs: number;
}

export interface TenantFairnessRun {
  readonly options: TenantFairnessOptions;
  /** The unrelated Pod's creation, alone (ms). */
  readonly baselineMs: number[];
  /** The unrelated Pod's creation while the tenant's reviews ran (ms). */
  readonly unrelatedMs: number[];
  /** Of those, the creations that failed (the API server's own timeout, most likely), by message. */
  readonly unrelatedFailures: string[];
  readonly healthMs: number[];
  /** Each slow Pod: ms until the API server answered, and its answer (shortened). */
  readonly tenant: Array<{ ms: number; answer: string }>;
}

const NAMESPACES = ['team-a', 'team-b'];

let unrelatedCount = 0;

/** Creates a labelled one-container Pod in team-b; resolves with the ms it took, and why it failed if it did. */
async function createUnrelated(url: string): Promise<{ ms: number; failure?: string }> {
  const name = `unrelated-${unrelatedCount++}`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-b', labels: { owner: 'b' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
  const started = performance.now();
  try {
    await apiPost(url, '/api/v1/namespaces/team-b/pods', pod);
    return { ms: performance.now() - started };
  } catch (error) {
    return { ms: performance.now() - started, failure: shortened((error as Error).message) };
  }
}

/** GET /healthz on the replica (certificate not checked, as the kubelet's probe); ms until it answered 200. */
function health(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const call = httpsRequest(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false, timeout: 30_000 },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`/healthz answered ${response.statusCode}`)),
        );
      },
    );
    call.on('timeout', () => call.destroy(new Error('/healthz: no answer within 30 s')));
    call.on('error', reject);
    call.end();
  });
}

export async function runTenantFairness(options: TenantFairnessOptions): Promise<TenantFairnessRun> {
  const cluster = await ChaosCluster.start([
    ...NAMESPACES.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    nestedForeachPolicy('every-pair', 'team-a') as unknown as JsonObject,
    requireOwnerPolicy('team-b') as unknown as JsonObject,
  ]);
  try {
    const replica = await cluster.startReplica('admission', { EDICT_WEBHOOK_WORKERS: options.workers });
    await cluster.awaitWebhookConfiguration();
    const baselineMs: number[] = [];
    for (let i = 0; i < 5; i++) baselineMs.push((await createUnrelated(cluster.url)).ms);

    const tenant: Array<{ ms: number; answer: string }> = [];
    const started = performance.now();
    const slow = Array.from({ length: options.slowPods }, (_, i) =>
      apiPost(
        cluster.url,
        '/api/v1/namespaces/team-a/pods',
        bigPod(`big-${i}`, 'team-a', options.containers) as unknown as JsonObject,
      ).then(
        () => tenant.push({ ms: performance.now() - started, answer: 'admitted' }),
        (error: Error) => tenant.push({ ms: performance.now() - started, answer: shortened(error.message) }),
      ),
    );
    const unrelatedMs: number[] = [];
    const unrelatedFailures: string[] = [];
    const healthMs: number[] = [];
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    while (tenant.length < options.slowPods) {
      const [unrelated, probe] = await Promise.all([createUnrelated(cluster.url), health(replica.port)]);
      unrelatedMs.push(unrelated.ms);
      if (unrelated.failure) unrelatedFailures.push(unrelated.failure);
      healthMs.push(probe);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
    await Promise.all(slow);
    return {
      options,
      baselineMs,
      unrelatedMs,
      unrelatedFailures,
      healthMs,
      tenant: tenant.sort((a, b) => a.ms - b.ms),
    };
  } finally {
    await cluster.close();
  }
}

function shortened(message: string): string {
  const timeout = /policy evaluation did not finish within \d+ms/.exec(message);
  if (timeout) return `denied: ${timeout[0]}`;
  if (/context deadline exceeded/.test(message)) return 'API server timeout (webhook answered too late)';
  return message.slice(0, 120);
}

const ms = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
const max = (values: number[]) => (values.length ? Math.max(...values) : 0);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
};

export function formatTenantFairness(run: TenantFairnessRun): string {
  const { options } = run;
  return [
    `Tenant fairness: ${options.slowPods} Pods of ${options.containers} containers under a nested-foreach Policy in team-a ` +
      `(review workers: ${options.workers}); an unrelated Pod in team-b and /healthz every ${options.intervalMs} ms meanwhile`,
    `  unrelated Pod alone:        median ${median(run.baselineMs).toFixed(0)} ms (${ms(run.baselineMs)})`,
    `  unrelated Pod during load:  median ${median(run.unrelatedMs).toFixed(0)} ms, max ${max(run.unrelatedMs).toFixed(0)} ms over ${run.unrelatedMs.length} (target: under 1000 ms)`,
    `  unrelated Pod failures:     ${run.unrelatedFailures.length}${run.unrelatedFailures.length ? ` (${[...new Set(run.unrelatedFailures)].join('; ')})` : ''}`,
    `  /healthz during load:       median ${median(run.healthMs).toFixed(0)} ms, max ${max(run.healthMs).toFixed(0)} ms`,
    ...run.tenant.map(
      (slow, i) => `  tenant Pod ${i + 1}: answered after ${(slow.ms / 1000).toFixed(1)} s: ${slow.answer}`,
    ),
  ].join('\n');
}
