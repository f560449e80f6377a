/**
 * `npm run e2e-conformance [-- paths...]`: Kyverno's chainsaw suite (../shared/chainsaw) against
 * Edict on the embedded cluster, installed under Kyverno's names, then the local twins of the
 * suite's public-registry tests (test/e2e-image-verification) against a registry started for the run.
 * Prints a line per test on stderr, then a table per folder (or `--output json|junit` on stdout); a
 * whole-suite run also writes docs/e2e-conformance.md. With `--check-floor`, exits 1 when fewer tests
 * pass than floor.json holds: of the suite, of its admission-only folders, and of the twins (counted
 * apart from Kyverno's figures).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ArgsError, LOCAL_DIR, parseArgs } from './args';
import { prepareLocalRegistry, type PreparedRegistry } from '../e2e-image-verification/setup/prepare';
import {
  renderJunit,
  renderMarkdown,
  renderTable,
  scoreOf,
  splitRecords,
  staleKnownFailures,
  type KnownFailures,
} from './report';
import { runSuite } from './run-suite';
import { startSuiteCluster } from './suite-cluster';

interface Floor {
  /** Minimum passing tests in the admission-only folders. */
  readonly admissionPassed: number;
  /** Minimum passing tests in the whole suite. */
  readonly totalPassed: number;
  /** Minimum passing local twins (test/e2e-image-verification). */
  readonly twinsPassed: number;
}

const DOC = resolve('docs/e2e-conformance.md');
const FLOOR = resolve('test/e2e-conformance/floor.json');
const KNOWN_FAILURES = resolve('test/e2e-conformance/known-failures.json');

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2), process.env, process.cwd());
  const started = performance.now();
  // The twins' registry, images and signatures, made once for the run.
  const registry: PreparedRegistry | undefined = args.localPaths.length > 0 ? await prepareLocalRegistry() : undefined;
  let records;
  try {
    records = await runSuite(
      args,
      startSuiteCluster,
      (record) =>
        process.stderr.write(
          `${record.outcome.toUpperCase().padEnd(5)} ${record.local ? `${LOCAL_DIR}/` : ''}${record.path} (${seconds(record.durationMs)})\n`,
        ),
      registry ? { paths: args.localPaths, values: registry.values, env: registry.clusterEnv } : undefined,
    );
  } finally {
    await registry?.stop();
  }
  const elapsedMs = performance.now() - started;
  const { suite, local } = splitRecords(records);
  const scores = scoreOf(suite);
  const localScores = scoreOf(local);
  if (args.output === 'json')
    process.stdout.write(JSON.stringify({ elapsedMs, scores, localScores, tests: records }, null, 2) + '\n');
  else if (args.output === 'junit') process.stdout.write(renderJunit(records, elapsedMs));
  else {
    if (suite.length > 0) process.stdout.write(`${renderTable(scores)}\n\n`);
    if (local.length > 0) process.stdout.write(`local twins (${LOCAL_DIR}):\n${renderTable(localScores, false)}\n\n`);
    process.stdout.write(`${records.length} tests in ${seconds(elapsedMs)}\n`);
  }
  if (args.whole) {
    const known = JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8')) as KnownFailures;
    writeFileSync(DOC, renderMarkdown(records, scores, elapsedMs, known));
    process.stderr.write(`${DOC} written\n`);
    for (const prefix of staleKnownFailures(suite, known))
      process.stderr.write(`${KNOWN_FAILURES}: "${prefix}" matches only passing tests now: remove it\n`);
  }
  if (!args.checkFloor) return 0;
  const floor = JSON.parse(readFileSync(FLOOR, 'utf8')) as Floor;
  const below = [
    scores.admission.passed < floor.admissionPassed
      ? `admission-only folders: ${scores.admission.passed} passed, floor ${floor.admissionPassed}`
      : undefined,
    scores.total.passed < floor.totalPassed
      ? `whole suite: ${scores.total.passed} passed, floor ${floor.totalPassed}`
      : undefined,
    localScores.total.passed < floor.twinsPassed
      ? `local twins: ${localScores.total.passed} passed, floor ${floor.twinsPassed}`
      : undefined,
  ].filter((line): line is string => line !== undefined);
  for (const line of below) process.stderr.write(`e2e-conformance below its floor (${FLOOR}): ${line}\n`);
  return below.length > 0 ? 1 : 0;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ArgsError) process.stderr.write(`e2e-conformance: ${error.message}\n`);
    else
      process.stderr.write(
        `e2e-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exit(2);
  },
);
