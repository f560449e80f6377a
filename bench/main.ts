import { runAdmissionSuite } from './admission-suite';
import { benchChildRole, serveAsChild } from './child-process';
import { runCorpusSuite } from './corpus-suite';
import { formatTable } from './harness';
import { formatWebhookSuite } from './webhook-report';
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

  console.log(formatWebhookSuite(await runWebhookSuite(LOAD_SECONDS, WARMUP_SECONDS), LOAD_SECONDS, WARMUP_SECONDS));

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
