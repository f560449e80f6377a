/**
 * Scenario 1: three admission replicas behind the webhook Service, Pod creates through the API
 * server at a fixed rate, and one replica stopped mid-load: first by SIGTERM (it must drain: turn
 * unready, keep serving until the Service drops it, finish in-flight reviews, write their reports,
 * exit), then, with a replacement started as a Deployment would, by SIGKILL. Per signal: failed
 * admissions, and audit results of admitted Pods that never reached a PolicyReport (the reports
 * controller runs without background scans, so only admission results count).
 */
import type { AuditTally } from './cluster';
import { ChaosCluster } from './chaos-cluster';
import { PodLoad, type LoadFailure } from './pod-load';
import { settle, sleep } from './settle';

const REPLICAS = 3;

export interface ReplicaFaultSettings {
  createsPerSecond: number;
  loadSeconds: number;
  /** Longest wait for reports after the load. */
  settleTimeoutMs: number;
}

export interface ReplicaFaultResult {
  signal: 'SIGTERM' | 'SIGKILL';
  sent: number;
  admitted: number;
  failedAdmissions: number;
  achievedPerSecond: number;
  /** From the signal to the replica's exit, ms. */
  exitMs: number;
  exitCode: number | null;
  podsChecked: number;
  expectedPolicies: number;
  lostAuditResults: number;
  /** Wait after the load until reports settled, ms. */
  settleMs: number;
  firstFailures: LoadFailure[];
}

export async function runReplicaFaults(settings: ReplicaFaultSettings): Promise<ReplicaFaultResult[]> {
  const cluster = await ChaosCluster.start();
  try {
    await cluster.startReplica('reports', { EDICT_BACKGROUND_SCAN: 'false' });
    await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica('admission')));
    await cluster.awaitWebhookConfiguration();
    const tally = () => cluster.api.call<AuditTally>('audit-tally');
    let before = await tally();
    const results: ReplicaFaultResult[] = [];
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      while (cluster.running('admission').length < REPLICAS) await cluster.startReplica('admission');
      // Every replica in the Service before the load starts.
      await settle(
        async () => cluster.balancer.readyPorts().length,
        (ready) => ready === REPLICAS,
        {
          quietMs: 10_000,
          timeoutMs: 10_000,
        },
      );
      const victim = cluster.running('admission')[0]!;
      const load = new PodLoad(cluster.url, settings.createsPerSecond);
      load.start();
      await sleep((settings.loadSeconds * 1000) / 3);
      const signalledAt = performance.now();
      victim.signal(signal);
      await sleep((settings.loadSeconds * 2000) / 3);
      const answered = await load.stop();
      const exit = await victim.exited;
      const after = await settle(tally, (value) => value.missingResults === before.missingResults, {
        quietMs: 15_000,
        timeoutMs: settings.settleTimeoutMs,
      });
      results.push({
        signal,
        sent: answered.sent,
        admitted: answered.admitted,
        failedAdmissions: answered.failed,
        achievedPerSecond: answered.sent / answered.seconds,
        exitMs: exit.at - signalledAt,
        exitCode: exit.code,
        podsChecked: after.value.pods - before.pods,
        expectedPolicies: after.value.expectedPolicies,
        lostAuditResults: after.value.missingResults - before.missingResults,
        settleMs: after.waitedMs,
        firstFailures: answered.failures,
      });
      before = after.value;
    }
    return results;
  } finally {
    await cluster.close();
  }
}
