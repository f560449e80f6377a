/**
 * Scenario 2: the leader of each controller stopped, by SIGTERM and then (the next leader) by
 * SIGKILL, out of three replicas. Handover is the time from the signal until the API server stores
 * another replica as the Lease's holder: on SIGTERM the leader releases the Lease and the others
 * watch it (goal ≤ 1 s); on SIGKILL nothing is released and the others wait out the lease
 * duration (goal ≤ 15 s). Then the new leader must do the controller's leader work (controller-work.ts).
 * Scenario 4 comes first, with the first admission leader in place: a deleted webhook configuration
 * is recreated by the leader's monitor (at its default interval, 30 s, unless `monitorIntervalMs`).
 */
import { ChaosCluster } from './chaos-cluster';
import type { ControllerKind, ControllerProcess } from './controller-process';
import { CONTROLLER_WORK, controllerWork, GENERATE_POLICY } from './controller-work';
import { settle, timeUntil } from './settle';

const REPLICAS = 3;
/** The controllers' default lease duration. */
export const LEASE_DURATION_MS = 15_000;
/** Admission last: the kinds before it need its replicas serving (the last one of each kind stays up). */
const ORDER: ControllerKind[] = ['background', 'reports', 'cleanup', 'admission'];

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
async function handover(
  cluster: ChaosCluster,
  lease: string,
  leader: ControllerProcess,
  signal: 'SIGTERM' | 'SIGKILL',
) {
  const signalledAt = Date.now();
  cluster.stop(leader, signal);
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
    await cluster.awaitWebhookConfiguration();
    try {
      run.webhookRecreatedMs = await controllerWork(cluster, 'admission', settings.monitorIntervalMs);
    } catch (error) {
      run.webhookProblem = (error as Error).message;
    }
    for (const kind of ORDER) {
      if (kind !== 'admission')
        await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica(kind, envOf(kind))));
      const lease = await leaseOf(cluster, kind);
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const result: LeaderFaultResult = { kind, signal, work: CONTROLLER_WORK[kind] };
        run.results.push(result);
        try {
          const holder = await cluster.awaitLeader(lease, 60_000);
          const leader = cluster.running(kind).find((replica) => replica.name === holder)!;
          result.handoverMs = await handover(cluster, lease, leader, signal);
          result.workMs = await controllerWork(cluster, kind, settings.monitorIntervalMs);
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
