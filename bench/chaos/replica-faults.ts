/**
 * Scenario 1: three admission replicas behind the webhook Service, admission load at a fixed rate
 * (Pod CREATE reviews through the API server's webhook client by default, or Pod creates through
 * the API server), and one replica stopped mid-load: first by SIGTERM (it must drain: turn
 * unready, keep serving until the Service drops it, finish in-flight reviews, write their reports,
 * exit), then, with a replacement started as a Deployment would, by SIGKILL. Per signal: failed
 * admissions, and audit results of admitted Pods that never reached a PolicyReport (the reports
 * controller runs without background scans, so only admission results count). Audits a killed
 * replica held are gone, in Kyverno too, until the next background scan evaluates the Pods again:
 * after both rounds the reports controller is restarted with background scans on, and the results
 * still missing once its reports settle are counted.
 */
import type { AuditTally } from './audit-tally';
import { ChaosCluster } from './chaos-cluster';
import type { LoadFailure, LoadTally } from './fixed-rate-sender';
import { PodLoad } from './pod-load';
import { ReplicaCounters, type ReplicaCounts } from './replica-counters';
import { ReviewLoad } from './review-load';
import { settle, sleep } from './settle';

/** `reviews`: reviews straight through the webhook client (the API server's storage out of the path); `pods`: creates through the API server. */
export type LoadMode = 'reviews' | 'pods';

const REPLICAS = 3;

export interface ReplicaFaultSettings {
  load: LoadMode;
  /** Reviews (or creates) asked per second. */
  perSecond: number;
  /** Backpressure from the after-admission backlog (EDICT_AUDIT_BACKPRESSURE); off for a comparison run. */
  backpressure: boolean;
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
  /** Growth of the replicas' own counters over the round (reviews answered, held, dropped audits). */
  replicaCounts: ReplicaCounts;
  /** Reviews the replicas answered per second (kyverno_admission_requests_total). */
  reviewsPerSecond: number;
  /** From the signal to the replica's exit, ms. */
  exitMs: number;
  exitCode: number | null;
  podsChecked: number;
  expectedPolicies: number;
  lostAuditResults: number;
  /** Wait after the load until reports settled, ms. */
  settleMs: number;
  firstFailures: LoadFailure[];
  /** Connection errors on the replicas' side of the balancer during the round, by `port code`, with the victim's port. */
  upstreamErrors: string[];
  victimPort: number;
  /** Connections the Service closed at once because no replica was ready. */
  noEndpointConnections: number;
  /** Times a listening replica left the Service because its readiness probes failed (slow, not dead). */
  probeEjections: number;
}

/** The background scan after both rounds: what it restored of the audit results the rounds lost. */
export interface ScanRepair {
  missingBefore: number;
  missingAfter: number;
  /** From the scanning reports controller's start until its reports settled, ms. */
  settleMs: number;
}

export interface ReplicaFaultRun {
  rounds: ReplicaFaultResult[];
  repair: ScanRepair;
}

export async function runReplicaFaults(settings: ReplicaFaultSettings): Promise<ReplicaFaultRun> {
  const cluster = await ChaosCluster.start();
  const admissionEnv = { EDICT_AUDIT_BACKPRESSURE: String(settings.backpressure) };
  let reviewLoad: ReviewLoad | undefined;
  try {
    await cluster.startReplica('reports', { EDICT_BACKGROUND_SCAN: 'false' });
    await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica('admission', admissionEnv)));
    await cluster.awaitWebhookConfiguration();
    if (settings.load === 'reviews')
      reviewLoad = await ReviewLoad.start(cluster, settings.perSecond, settings.loadSeconds);
    const tally = () => cluster.api.call<AuditTally>('audit-tally');
    let before = await tally();
    const results: ReplicaFaultResult[] = [];
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      while (cluster.running('admission').length < REPLICAS) await cluster.startReplica('admission', admissionEnv);
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
      cluster.balancer.upstreamErrors.clear();
      const { noEndpoint, probeEjections } = cluster.balancer;
      const counters = new ReplicaCounters(() => cluster.running('admission'));
      await counters.start();
      const load = reviewLoad ?? new PodLoad(cluster.url, settings.perSecond);
      await load.begin();
      await sleep((settings.loadSeconds * 1000) / 3);
      const signalledAt = performance.now();
      cluster.stop(victim, signal);
      await sleep((settings.loadSeconds * 2000) / 3);
      const answered: LoadTally = await load.finish();
      const replicaCounts = await counters.stop();
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
        replicaCounts,
        reviewsPerSecond: replicaCounts.reviews / answered.seconds,
        exitMs: exit.at - signalledAt,
        exitCode: exit.code,
        podsChecked: after.value.pods - before.pods,
        expectedPolicies: after.value.expectedPolicies,
        lostAuditResults: after.value.missingResults - before.missingResults,
        settleMs: after.waitedMs,
        firstFailures: answered.failures,
        upstreamErrors: [...cluster.balancer.upstreamErrors].map(([key, count]) => `${key} x${count}`),
        victimPort: victim.port,
        noEndpointConnections: cluster.balancer.noEndpoint - noEndpoint,
        probeEjections: cluster.balancer.probeEjections - probeEjections,
      });
      before = after.value;
    }
    return { rounds: results, repair: await repairByBackgroundScan(cluster, tally, before, settings.settleTimeoutMs) };
  } finally {
    await reviewLoad?.stop();
    await cluster.close();
  }
}

async function repairByBackgroundScan(
  cluster: ChaosCluster,
  tally: () => Promise<AuditTally>,
  before: AuditTally,
  timeoutMs: number,
): Promise<ScanRepair> {
  for (const replica of cluster.running('reports')) {
    cluster.stop(replica, 'SIGTERM');
    await replica.exited;
  }
  const startedAt = performance.now();
  await cluster.startReplica('reports', { EDICT_BACKGROUND_SCAN: 'true' });
  // The scan rewrites complete Pods' reports too: the tally's report writes show it is still going.
  const after = await settle(tally, (value) => value.missingResults === 0, { quietMs: 15_000, timeoutMs });
  return {
    missingBefore: before.missingResults,
    missingAfter: after.value.missingResults,
    settleMs: performance.now() - startedAt,
  };
}
