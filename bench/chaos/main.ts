/**
 * `npm run chaos [-- --only replicas,leaders,... ] [--quick]`: fault scenarios on the embedded
 * cluster (the in-memory API server and the real controllers, each replica its own process), each
 * printing its figures. `--quick` runs shorter and lighter, for trial runs. The replicas scenario
 * takes `--load reviews|pods` (reviews by default), `--rate N` (per second; 500 for reviews) and
 * `--no-backpressure` (the admission replicas' EDICT_AUDIT_BACKPRESSURE=false, for a comparison).
 * The tenants scenario takes `--workers N` (the replica's EDICT_WEBHOOK_WORKERS; 0 by default); the
 * updaterequests scenario takes `--rate N` (Namespace creates per second, 10 by default).
 */
import { benchChildRole, serveAsChild } from '../child-process';
import { cluster } from './cluster';
import { runControllerRole } from './controller-process';
import { runApiOutage } from './api-outage';
import { runCertExpiry } from './cert-expiry';
import { formatCertExpiry } from './cert-report';
import { CERT_SCENARIO_TIMING } from './cert-rotations';
import { runLeaderFaults } from './leader-faults';
import { formatApiOutage, formatLeaderFaults, formatReplicaFaults, formatUpdateRequestFaults } from './report';
import { runReplicaFaults, type LoadMode } from './replica-faults';
import { reviewLoad } from './review-load-child';
import { runUpdateRequestFaults } from './update-request-faults';
import { REVIEW_LOAD_ROLE } from './review-load';
import { formatTenantFairness, runTenantFairness } from './tenant-fairness';

const SCENARIOS = ['replicas', 'leaders', 'outage', 'certs', 'tenants', 'updaterequests'] as const;
type Scenario = (typeof SCENARIOS)[number];

/** The scenarios `--only a,b` names (all without it). */
function selectedScenarios(argv: readonly string[]): Scenario[] {
  const index = argv.indexOf('--only');
  if (index < 0) return [...SCENARIOS];
  const names = (argv[index + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only takes a comma-separated list of ${SCENARIOS.join(', ')}; got "${argv[index + 1] ?? ''}"`);
  return names as Scenario[];
}

/** The value after `flag`, or `fallback` without the flag. */
function option(argv: readonly string[], flag: string, fallback: string): string {
  const index = argv.indexOf(flag);
  if (index < 0) return fallback;
  const value = argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
  return value;
}

function loadMode(argv: readonly string[]): LoadMode {
  const mode = option(argv, '--load', 'reviews');
  if (mode !== 'reviews' && mode !== 'pods') throw new Error(`--load takes reviews or pods; got "${mode}"`);
  return mode;
}

function rate(argv: readonly string[], fallback: number): number {
  const text = option(argv, '--rate', String(fallback));
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 10_000)
    throw new Error(`--rate takes a whole number of requests per second (1-10000); got "${text}"`);
  return value;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const scenarios = selectedScenarios(argv);
  console.log(`Node ${process.version}, ${new Date().toISOString()}${quick ? ', quick mode' : ''}\n`);
  // Kyverno's webhook monitor checks every 30 s; quick runs check every 5 s.
  const monitorIntervalMs = quick ? 5_000 : 30_000;
  for (const scenario of scenarios) {
    if (scenario === 'replicas') {
      const load = loadMode(argv);
      const results = await runReplicaFaults({
        load,
        perSecond: rate(argv, load === 'reviews' ? 500 : quick ? 100 : 250),
        backpressure: !argv.includes('--no-backpressure'),
        loadSeconds: quick ? 15 : 30,
        settleTimeoutMs: quick ? 60_000 : 120_000,
      });
      console.log(formatReplicaFaults(results, load));
    } else if (scenario === 'leaders') {
      console.log(formatLeaderFaults(await runLeaderFaults({ monitorIntervalMs }), monitorIntervalMs));
    } else if (scenario === 'outage') {
      console.log(formatApiOutage(await runApiOutage({ outageMs: quick ? 30_000 : 60_000, monitorIntervalMs })));
    } else if (scenario === 'tenants') {
      const workers = option(argv, '--workers', '0');
      if (!/^(auto|\d+)$/.test(workers))
        throw new Error(`--workers takes auto or a number of threads; got "${workers}"`);
      const run = await runTenantFairness({ workers, slowPods: quick ? 2 : 3, containers: 250, intervalMs: 300 });
      console.log(formatTenantFairness(run));
    } else if (scenario === 'certs') {
      const run = await runCertExpiry({ createsPerSecond: quick ? 10 : 15, maxLoadMs: 150_000 });
      console.log(formatCertExpiry(run, CERT_SCENARIO_TIMING));
    } else if (scenario === 'updaterequests') {
      const run = await runUpdateRequestFaults({
        perSecond: rate(argv, quick ? 5 : 10),
        loadSeconds: quick ? 30 : 60,
        kills: quick ? 2 : 4,
        podReviewsPerSecond: quick ? 50 : 100,
        settleTimeoutMs: 120_000,
      });
      console.log(formatUpdateRequestFaults(run));
    }
  }
}

if (runControllerRole()) {
  // This process is a controller replica: its main runs until a signal ends it.
} else if (benchChildRole() === 'chaos-cluster') {
  serveAsChild(cluster);
} else if (benchChildRole() === REVIEW_LOAD_ROLE) {
  serveAsChild(reviewLoad);
} else {
  // Bounded: a run that hangs fails instead of holding the machine.
  const limit = setTimeout(() => {
    console.error('chaos: over 15 minutes, stopped');
    process.exit(1);
  }, 15 * 60_000);
  main().then(
    () => {
      clearTimeout(limit);
      process.exit(0);
    },
    (error: Error) => {
      console.error(error.stack ?? error.message);
      process.exit(1);
    },
  );
}
