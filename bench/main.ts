import { availableParallelism, loadavg } from 'node:os';
import { runAdmissionSuite } from './admission-suite';
import { benchChildRole, serveAsChild } from './child-process';
import { runCorpusSuite } from './corpus-suite';
import { formatColumns, formatTable } from './harness';
import { runWebhookSuite } from './webhook-suite';
import { BENCH_ROLES } from './webhook-servers';

/** Seconds per measured load point and per warm-up ($EDICT_BENCH_SECONDS for quicker trial runs). */
const LOAD_SECONDS = Number(process.env.EDICT_BENCH_SECONDS ?? 8);
const WARMUP_SECONDS = Math.min(5, LOAD_SECONDS);

/** `npm run bench`: engine timings and the admission webhook over HTTPS, each next to a baseline measured in the same run. */
async function main(): Promise<void> {
  console.log(`Node ${process.version} on ${process.platform}/${process.arch}, ${new Date().toISOString()}\n`);

  const admission = await runAdmissionSuite();
  console.log(
    `One Pod CREATE review (${admission.validateRules} validate rule responses; mutation builds ${admission.patchOperations} patch operations)`,
  );
  console.log(formatTable(admission.rows, admission.baseline));
  const [, validate, mutate] = admission.rows;
  console.log(`mutate / validate pipeline: ${(mutate.medianUs / validate.medianUs).toFixed(2)}x\n`);

  await printWebhookSuite();

  const corpus = await runCorpusSuite();
  if (!corpus) {
    console.log('Conformance corpus not found: corpus benchmark skipped (set EDICT_SHARED_DIR).');
    return;
  }
  const perEvaluation = corpus.pass.medianUs / corpus.evaluations;
  console.log(
    `Conformance corpus: ${corpus.tests} tests, ${corpus.evaluations} policy × resource evaluations per pass`,
  );
  console.log(
    `  ${(corpus.pass.medianUs / 1000).toFixed(1)} ms per pass, ${perEvaluation.toFixed(1)} µs per evaluation` +
      ` (${(perEvaluation / admission.baseline.medianUs).toFixed(2)}x JSON.parse of the review)`,
  );
}

async function printWebhookSuite(): Promise<void> {
  const suite = await runWebhookSuite(LOAD_SECONDS, WARMUP_SECONDS);
  const { evaluated, missing, ruleResults } = suite.verification;
  const count = (counts: Record<string, string[] | number>) =>
    Object.entries(counts)
      .map(([key, value]) => `${Array.isArray(value) ? value.length : value} ${key}`)
      .join(', ');
  console.log(
    `Admission webhook over HTTPS keep-alive: one Pod CREATE review, ${suite.policies} PSS policies picked for it; ` +
      `${LOAD_SECONDS} s per point in ${suite.slices} turns alternating between the servers, after a ${WARMUP_SECONDS} s warm-up at 50 connections`,
  );
  console.log(`  ${suite.layout}`);
  console.log(
    `  ${availableParallelism()} cores; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')} at the end (other work on the machine shows here and in the CPU columns)`,
  );
  console.log(
    `  policies the controller evaluated per review (its metrics): ${count(evaluated)}; rule results: ${count(ruleResults)}`,
  );
  if (missing.length > 0)
    console.log(
      `  WARNING: ${missing.length} of ${suite.policies} policies were never evaluated (${missing.join(', ')}): ` +
        `the webhook figures below do not include them`,
    );
  console.log('  both servers give the same answer, byte for byte (checked on every measured response)');
  const bareAt = (connections: number) =>
    suite.rows.find((row) => row.connections === connections && row.name.startsWith('bare'))!;
  const lines = [
    [
      'endpoint',
      'connections',
      'requests/s',
      'p50 ms',
      'p99 ms',
      'server CPU',
      'load CPU',
      'req/s × bare',
      'p99 × bare',
    ],
    ...suite.rows.map((row) => [
      row.name,
      String(row.connections),
      Math.round(row.requestsPerSecond).toLocaleString('en-US'),
      row.p50Ms.toFixed(2),
      row.p99Ms.toFixed(2),
      `${Math.round(row.serverCpu * 100)}%`,
      `${Math.round(row.generatorCpu * 100)}%`,
      (row.requestsPerSecond / bareAt(row.connections).requestsPerSecond).toFixed(2),
      (row.p99Ms / bareAt(row.connections).p99Ms).toFixed(2),
    ]),
  ];
  console.log(formatColumns(lines));
  console.log(
    `in-memory API server process during the measurements: ${Math.round(suite.apiServerCpu * 100)}% of a core`,
  );
  const { reviews, ruleResults: results, expectedPerReview, auditDropped } = suite.coverage;
  console.log(
    `controller over the whole run: ${reviews.toLocaleString('en-US')} reviews, ` +
      `${(results / reviews).toFixed(2)} rule results per review (one review gives ${expectedPerReview})` +
      (auditDropped === undefined ? '' : `, ${auditDropped} audit evaluations dropped`),
  );
  console.log(
    `webhook / bare: throughput at 50 connections ${suite.throughputRatio.toFixed(2)}x, ` +
      `p99 at 10 connections ${suite.p99Ratio.toFixed(2)}x\n`,
  );
}

const role = benchChildRole();
if (role) {
  const runner = BENCH_ROLES[role];
  if (!runner) throw new Error(`unknown bench child role ${role}`);
  serveAsChild(runner);
} else {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
