/** The chaos run's figures as plain-text tables. */
import type { OutageRun } from './api-outage';
import type { LeaderFaultRun } from './leader-faults';
import type { LoadMode, ReplicaFaultRun } from './replica-faults';
import type { UpdateRequestFaultRun } from './update-request-faults';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function formatReplicaFaults({ rounds: results, repair }: ReplicaFaultRun, load: LoadMode): string {
  const rows = results.map((result) => [
    result.signal,
    `${result.sent}`,
    result.achievedPerSecond.toFixed(0),
    result.reviewsPerSecond.toFixed(0),
    `${result.replicaCounts.heldReviews} (${result.replicaCounts.releasedAtBound} at bound)`,
    `${result.replicaCounts.auditDropped}`,
    `${result.failedAdmissions}`,
    `${result.exitMs.toFixed(0)} ms (code ${result.exitCode ?? 'none'})`,
    `${result.podsChecked} x ${result.expectedPolicies}`,
    `${result.lostAuditResults}`,
    `${(result.settleMs / 1000).toFixed(1)} s`,
  ]);
  const failures = results.flatMap((result) =>
    result.firstFailures
      .slice(0, 3)
      .map((failure) => `  ${result.signal} at ${failure.atMs} ms: ${failure.status} ${failure.message}`),
  );
  const upstream = results
    .filter((result) => result.upstreamErrors.length > 0)
    .map(
      (result) =>
        `  ${result.signal} (stopped replica on port ${result.victimPort}): ${result.upstreamErrors.join(', ')}`,
    );
  const service = results
    .filter((result) => result.noEndpointConnections > 0 || result.probeEjections > 0)
    .map(
      (result) =>
        `  ${result.signal}: ${result.noEndpointConnections} connections found no ready replica; ` +
        `live replicas left the Service ${result.probeEjections} times on failed probes`,
    );
  return [
    `Admission replicas (3 behind the Service), one stopped mid-load; load: ${
      load === 'reviews' ? 'Pod CREATE reviews through the webhook client' : 'Pod creates through the API server'
    }`,
    table(
      [
        'signal',
        load === 'reviews' ? 'reviews sent' : 'creates',
        load === 'reviews' ? 'sent/s' : 'creates/s',
        'reviews/s (replicas)',
        'held for backlog',
        'audits dropped',
        'failed admissions',
        'signal to exit',
        'pods x policies',
        'lost audit results',
        'reports settled after',
      ],
      rows,
    ),
    ...(failures.length > 0 ? ['First failures:', ...failures] : []),
    ...(upstream.length > 0 ? ['Replica-side connection errors at the Service (port code):', ...upstream] : []),
    ...(service.length > 0 ? ['Service endpoints:', ...service] : []),
    `Then the reports controller restarted with background scans: ${repair.missingBefore} audit results missing, ` +
      `${repair.missingAfter} after ${(repair.settleMs / 1000).toFixed(1)} s`,
    '',
  ].join('\n');
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${(value / 1000).toFixed(2)} s`);

export function formatLeaderFaults(run: LeaderFaultRun, monitorIntervalMs: number): string {
  const rows = run.results.map((result) => [
    result.kind,
    result.signal,
    ms(result.handoverMs),
    result.work,
    ms(result.workMs),
  ]);
  const problems = run.results
    .filter((result) => result.problem)
    .map((result) => `  ${result.kind} ${result.signal}: ${result.problem}`);
  return [
    `Webhook configuration deleted: recreated by the leader's monitor (every ${monitorIntervalMs / 1000} s) after ${
      run.webhookRecreatedMs === undefined ? `- (${run.webhookProblem})` : ms(run.webhookRecreatedMs)
    }`,
    '',
    'Leaders stopped (3 replicas each; lease duration 15 s)',
    table(['controller', 'signal', 'handover', 'leader work after it', 'done after'], rows),
    ...(problems.length > 0 ? ['Problems:', ...problems] : []),
    '',
  ].join('\n');
}

export function formatApiOutage(run: OutageRun): string {
  const rows = run.recoveries.map((recovery) => [
    recovery.kind,
    recovery.work,
    recovery.recoveredMs === undefined ? `- (${recovery.problem})` : ms(recovery.recoveredMs),
  ]);
  return [
    `API server unavailable for ${run.outageMs / 1000} s`,
    `  controllers that exited during it: ${run.exited.length === 0 ? 'none' : run.exited.join(', ')}`,
    `  reviews answered from cache during it: ${run.reviewsDuringOutage - run.failedReviewsDuringOutage} of ${run.reviewsDuringOutage}` +
      (run.firstReviewFailure ? ` (first failure: ${run.firstReviewFailure})` : ''),
    table(['controller', 'work after the API server returned', 'recovered after'], rows),
    '',
  ].join('\n');
}

export function formatUpdateRequestFaults(run: UpdateRequestFaultRun): string {
  const lost = run.coverage.missingCount;
  return [
    'UpdateRequests across SIGKILLs: a generate policy (default-deny NetworkPolicy per Namespace), Namespaces created',
    `through the API server in bursts for ${run.loadSeconds.toFixed(0)} s while admission replicas (2 behind the Service)`,
    `are SIGKILLed a few ms into a burst and replaced; ${run.podReviews} Pod CREATE reviews alongside (their audits queue after the answers)`,
    table(
      [
        'namespaces created',
        'SIGKILLs',
        'failed attempts (retried)',
        'gave up',
        'without NetworkPolicy',
        'settled after',
      ],
      [
        [
          `${run.namespacesCreated}`,
          `${run.kills}`,
          `${run.failedAttempts}`,
          `${run.gaveUp}`,
          `${lost}${lost > 0 ? ` (${run.coverage.missing.slice(0, 3).join(', ')}, ...)` : ''}`,
          `${(run.settleMs / 1000).toFixed(1)} s`,
        ],
      ],
    ),
    `${run.namespacesCreated} namespaces created across ${run.kills} SIGKILLs, ${lost} lost` +
      (run.confirmedCreates !== run.namespacesCreated
        ? ` (${run.confirmedCreates} of the creates were answered to the client in time)`
        : ''),
    '',
  ].join('\n');
}
