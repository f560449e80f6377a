/** The `certs` scenario's figures as plain text. */
import type { CertExpiryRun } from './cert-expiry';
import { SAMPLE_INTERVAL_MS } from './cert-observer';
import type { CertScenarioTiming, ServingTally } from './cert-rotations';

const seconds = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(2)} s`);

function servingLine(tally: ServingTally): string {
  return (
    `${tally.samples} handshakes: ${tally.unanswered} unanswered, ${tally.expired} expired certificates, ` +
    `${tally.untrusted} whose CA some caBundle lacked` +
    (tally.firstBad
      ? ` (first at ${seconds(tally.firstBad.atMs)}, ${tally.firstBad.replica}: ${tally.firstBad.why})`
      : '')
  );
}

export function formatCertExpiry(run: CertExpiryRun, timing: CertScenarioTiming): string {
  const replicas = Object.keys(run.rotations[0]?.servedAfterMs ?? {});
  const header = ['#', 'kind', 'written at', 'CA age', ...replicas.map((name) => `served by ${name}`)];
  const rows = run.rotations.map((rotation, index) => [
    `${index + 1}`,
    rotation.kind,
    seconds(rotation.writtenAtMs),
    rotation.caAgeMs === undefined ? '' : seconds(rotation.caAgeMs),
    ...replicas.map((name) => seconds(rotation.servedAfterMs[name])),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  const { load, restart } = run;
  return [
    `Certificate expiry under load (3 admission replicas; CA ${timing.caValidityMs / 1000} s, leaf ` +
      `${timing.tlsValidityMs / 1000} s, renewed ${timing.renewBeforeMs / 1000} s before expiry, CA propagation ` +
      `${timing.caPropagationMs / 1000} s, checks every ${timing.certCheckIntervalMs / 1000} s; served certificates ` +
      `sampled every ${SAMPLE_INTERVAL_MS} ms, so "served by" is late by up to that)`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
    `rotations seen: ${run.complete ? 'a leaf renewal and a move to a new CA, each served by every replica' : 'INCOMPLETE (load ended before both were served by every replica)'}`,
    `load from ${seconds(run.loadStartedAtMs)}: ${load.sent} Pod creates (${(load.sent / load.seconds).toFixed(0)}/s), ` +
      `${load.failed} failed admissions (times below from the load's start)`,
    ...load.failures.slice(0, 3).map((failure) => `  at ${failure.atMs} ms: ${failure.status} ${failure.message}`),
    `during the load: ${servingLine(run.serving)}; the Lease changed holder ${run.leaderChanges} times, a leader stopped leading ${run.leadershipLosses} times`,
    `all replicas killed; restarted ${seconds(restart.downMs)} later, when the leaf had expired ` +
      `${seconds(restart.leafExpiredMs)} and the CA ${seconds(restart.caExpiredMs)} before`,
    `  first TLS answer after ${seconds(restart.firstAnsweredMs)}, a new leader after ${seconds(restart.leaderMs)}, ` +
      `a valid certificate served after ${seconds(restart.firstValidMs)} (every replica: ${seconds(restart.allValidMs)}); ` +
      `first admission after ${seconds(restart.firstAdmissionMs)} (${restart.failedCreates} creates failed before)`,
    `  after the restart: ${servingLine(restart.serving)}`,
    '',
  ].join('\n');
}
