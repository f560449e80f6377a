/**
 * Scenario 2: the leader of each controller stopped, by SIGTERM and then (the next leader) by
 * SIGKILL, out of three replicas. Handover is the time from the signal until the API server stores
 * another replica as the Lease's holder: on SIGTERM the leader releases the Lease and the others
 * watch it (goal ≤ 1 s); on SIGKILL nothing is released and the others wait out the lease
 * duration (goal ≤ 15 s). Then the new leader must do the controller's leader work:
 *  - admission: its webhook monitor recreates a deleted ValidatingWebhookConfiguration;
 *  - background: a generate rule's UpdateRequest (from a Namespace create) makes its ConfigMap;
 *  - reports: a new Pod's admission results end in its PolicyReport;
 *  - cleanup: an object with a `cleanup.kyverno.io/ttl` label is deleted when it expires.
 * Scenario 4 comes first, with the first admission leader in place: a deleted webhook configuration
 * is recreated by the leader's monitor (at its default interval, 30 s, unless `monitorIntervalMs`).
 */
import type { JsonObject } from '@edict/engine';
import { DEFAULT_WEBHOOK_NAMES } from '@edict/webhooks';
import { apiPost } from './api-post';
import { ChaosCluster } from './chaos-cluster';
import { LOAD_NAMESPACE } from './cluster';
import type { ControllerKind, ControllerProcess } from './controller-process';
import { settle, sleep } from './settle';

const REPLICAS = 3;
/** The controllers' default lease duration. */
export const LEASE_DURATION_MS = 15_000;
/** Admission last: the kinds before it need its replicas serving (the last one of each kind stays up). */
const ORDER: ControllerKind[] = ['background', 'reports', 'cleanup', 'admission'];
const GENERATE_PREFIX = 'chaos-generate-';

/** A generate rule whose UpdateRequests only the background leader completes. */
const GENERATE_POLICY: JsonObject = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'chaos-generate' },
  spec: {
    rules: [
      {
        name: 'configmap',
        match: { any: [{ resources: { kinds: ['Namespace'], names: [`${GENERATE_PREFIX}*`] } }] },
        generate: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'generated',
          namespace: '{{request.object.metadata.name}}',
          synchronize: false,
          data: { data: { made: 'by the background leader' } },
        },
      },
    ],
  },
};

export interface LeaderFaultSettings {
  /** The admission controllers' webhook monitor interval. */
  monitorIntervalMs: number;
}

export interface LeaderFaultResult {
  kind: ControllerKind;
  signal: 'SIGTERM' | 'SIGKILL';
  /** From the signal to another replica holding the Lease, ms (undefined: none within the bound). */
  handoverMs?: number;
  work: string;
  /** From the handover to the work done, ms (undefined: not done within the bound). */
  workMs?: number;
  problem?: string;
}

export interface LeaderFaultRun {
  /** Scenario 4: ms from deleting the validating webhook configuration to the leader recreating it. */
  webhookRecreatedMs?: number;
  webhookProblem?: string;
  results: LeaderFaultResult[];
}

const WORK: Record<ControllerKind, string> = {
  admission: 'deleted webhook configuration recreated',
  background: 'generate UpdateRequest completed',
  reports: "new Pod's PolicyReport written",
  cleanup: 'ttl-labelled ConfigMap deleted',
};

async function exists(cluster: ChaosCluster, apiVersion: string, kind: string, name: string, namespace?: string) {
  return cluster.api.call<boolean>('exists', { apiVersion, kind, name, namespace });
}

/** Polls `done` every 100 ms for `timeoutMs`; resolves with the ms it took, rejects when out of time. */
async function timeUntil(done: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not done after ${timeoutMs} ms`);
    await sleep(100);
  }
  return performance.now() - started;
}

let generated = 0;

/** Does the leader work of `kind` once; resolves with the ms it took. */
async function leaderWork(cluster: ChaosCluster, kind: ControllerKind, settings: LeaderFaultSettings): Promise<number> {
  const timeoutMs = 60_000;
  switch (kind) {
    case 'admission':
      return cluster.api.call<number>('time-recreation', {
        kind: 'ValidatingWebhookConfiguration',
        name: DEFAULT_WEBHOOK_NAMES.resourceValidating,
        timeoutMs: 2 * settings.monitorIntervalMs + 10_000,
      });
    case 'background': {
      const name = `${GENERATE_PREFIX}${generated++}`;
      const started = performance.now();
      await apiPost(cluster.url, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await timeUntil(() => exists(cluster, 'v1', 'ConfigMap', 'generated', name), timeoutMs, 'generated ConfigMap');
      return performance.now() - started;
    }
    case 'reports': {
      const started = performance.now();
      const pod = await apiPost(cluster.url, `/api/v1/namespaces/${LOAD_NAMESPACE}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { generateName: 'leader-', namespace: LOAD_NAMESPACE },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
      const uid = (pod.metadata as JsonObject).uid as string;
      await timeUntil(
        () => exists(cluster, 'wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, LOAD_NAMESPACE),
        timeoutMs,
        'PolicyReport',
      );
      return performance.now() - started;
    }
    case 'cleanup': {
      const name = `ttl-${generated++}`;
      const started = performance.now();
      await cluster.api.call('create', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: LOAD_NAMESPACE, labels: { 'cleanup.kyverno.io/ttl': '1s' } },
      });
      await timeUntil(
        async () => !(await exists(cluster, 'v1', 'ConfigMap', name, LOAD_NAMESPACE)),
        timeoutMs,
        'ttl deletion',
      );
      return performance.now() - started;
    }
  }
}

/** The Lease the replicas of `kind` elect with: the one a replica of that kind holds. */
async function leaseOf(cluster: ChaosCluster, kind: ControllerKind): Promise<string> {
  const found = await settle(
    async () => (await cluster.leaseChanges()).find((change) => change.holder.startsWith(`${kind}-`))?.lease,
    (lease) => lease !== undefined,
    { quietMs: 60_000, timeoutMs: 60_000 },
  );
  if (!found.value) throw new Error(`no ${kind} replica took a Lease within 60 s`);
  return found.value;
}

/** Signals the leader; resolves with the ms until the API server stores another replica as the holder. */
async function handover(cluster: ChaosCluster, lease: string, leader: ControllerProcess, signal: 'SIGTERM' | 'SIGKILL') {
  const signalledAt = Date.now();
  leader.signal(signal);
  const successor = async () =>
    (await cluster.leaseChanges()).find(
      (change) =>
        change.lease === lease && change.at >= signalledAt && change.holder !== '' && change.holder !== leader.name,
    );
  await timeUntil(async () => (await successor()) !== undefined, 2 * LEASE_DURATION_MS + 10_000, `${lease} handover`);
  return (await successor())!.at - signalledAt;
}

export async function runLeaderFaults(settings: LeaderFaultSettings): Promise<LeaderFaultRun> {
  const cluster = await ChaosCluster.start([GENERATE_POLICY]);
  const admissionEnv = { EDICT_WEBHOOK_MONITOR_INTERVAL_MS: String(settings.monitorIntervalMs) };
  const envOf = (kind: ControllerKind): Record<string, string> =>
    kind === 'admission' ? admissionEnv : kind === 'reports' ? { EDICT_BACKGROUND_SCAN: 'false' } : {};
  const run: LeaderFaultRun = { results: [] };
  try {
    await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica('admission', admissionEnv)));
    await cluster.awaitLeader(await leaseOf(cluster, 'admission'), 60_000);
    try {
      run.webhookRecreatedMs = await leaderWork(cluster, 'admission', settings);
    } catch (error) {
      run.webhookProblem = (error as Error).message;
    }
    for (const kind of ORDER) {
      if (kind !== 'admission')
        await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica(kind, envOf(kind))));
      const lease = await leaseOf(cluster, kind);
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const result: LeaderFaultResult = { kind, signal, work: WORK[kind] };
        run.results.push(result);
        try {
          const holder = await cluster.awaitLeader(lease, 60_000);
          const leader = cluster.running(kind).find((replica) => replica.name === holder)!;
          result.handoverMs = await handover(cluster, lease, leader, signal);
          result.workMs = await leaderWork(cluster, kind, settings);
        } catch (error) {
          result.problem = (error as Error).message;
        }
      }
    }
    return run;
  } finally {
    await cluster.close();
  }
}
