import { runAdmissionSuite } from './admission-suite';
import { formatBackgroundSuite } from './background-report';
import { BACKGROUND_ROLES } from './background-servers';
import { runBackgroundSuite } from './background-suite';
import { benchChildRole, serveAsChild } from './child-process';
import { runCorpusSuite } from './corpus-suite';
import { formatTable, pairedRatio, type Measurement } from './harness';
import { formatImageVerificationSuite, runImageVerificationSuite } from './image-verification-suite';
import { formatMetricsSuite, runMetricsSuite } from './metrics-suite';
import { formatReportsSuite } from './reports-report';
import { REPORTS_ROLES } from './reports-servers';
import { runReportsSuite } from './reports-suite';
import { formatWebhookSuite } from './webhook-report';
import { runWebhookSuite, webhookSuiteOptionsFromEnv } from './webhook-suite';
import { BENCH_ROLES } from './webhook-servers';

/** Seconds per measured load point and per warm-up ($EDICT_BENCH_SECONDS for quicker trial runs). */
const LOAD_SECONDS = Number(process.env.EDICT_BENCH_SECONDS ?? 8);
const WARMUP_SECONDS = Math.min(5, LOAD_SECONDS);
/** Namespaces (and so UpdateRequests) of the background suite ($EDICT_BENCH_NAMESPACES for quicker trial runs). */
const BACKGROUND_NAMESPACES = Number(process.env.EDICT_BENCH_NAMESPACES ?? 1000);
/** Pods of the reports suite's background scan ($EDICT_BENCH_PODS for quicker trial runs). */
const REPORTS_PODS = Number(process.env.EDICT_BENCH_PODS ?? 10_000);
/** Direct reviews of the metrics suite ($EDICT_BENCH_METRICS_REVIEWS for quicker trial runs). */
const METRICS_REVIEWS = Number(process.env.EDICT_BENCH_METRICS_REVIEWS ?? 20_000);

const SUITES = ['admission', 'image', 'webhook', 'corpus', 'background', 'reports', 'metrics'] as const;
type Suite = (typeof SUITES)[number];

/** The suites `--only a,b` names (all without it). */
function selectedSuites(argv: readonly string[]): Set<Suite> {
  const index = argv.indexOf('--only');
  if (index < 0) return new Set(SUITES);
  const names = (argv[index + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(SUITES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only takes a comma-separated list of ${SUITES.join(', ')}; got "${argv[index + 1] ?? ''}"`);
  return new Set(names as Suite[]);
}

/** `npm run bench [-- --only suite,...]`: each figure next to a baseline measured in the same run. */
async function main(): Promise<void> {
  const suites = selectedSuites(process.argv.slice(2));
  console.log(`Node ${process.version} on ${process.platform}/${process.arch}, ${new Date().toISOString()}\n`);

  // The corpus figure is also read against the admission suite's baseline.
  let parseBaseline: Measurement | undefined;
  if (suites.has('admission')) {
    const admission = await runAdmissionSuite();
    parseBaseline = admission.baseline;
    console.log(
      `One Pod CREATE review (${admission.validateRules} validate rule responses; mutation builds ${admission.patchOperations} patch operations)`,
    );
    console.log(formatTable(admission.rows, admission.baseline));
    const { validate, mutate, mutatingPolicies } = admission;
    console.log(
      `validate compiled / interpreted: ${pairedRatio(validate.compiled, validate.interpreted).toFixed(2)}x; ` +
        `with ${admission.exceptions} PolicyExceptions in force / without: ${pairedRatio(validate.exceptions, validate.compiled).toFixed(2)}x; ` +
        `one-condition policies / PSS (compiled): ${pairedRatio(validate.oneCondition, validate.compiled).toFixed(2)}x; ` +
        `PSS as ValidatingPolicies / classic PSS (compiled): ${pairedRatio(validate.validatingPolicies, validate.compiled).toFixed(2)}x; ` +
        `mutate / validate (compiled): ${pairedRatio(mutate, validate.compiled).toFixed(2)}x; ` +
        `mutations as MutatingPolicies / classic mutate: ${pairedRatio(mutatingPolicies, mutate).toFixed(2)}x; ` +
        `tracing on / off (compiled): ${pairedRatio(validate.traced, validate.compiled).toFixed(2)}x\n`,
    );
  }

  if (suites.has('image')) console.log(formatImageVerificationSuite(await runImageVerificationSuite()));

  if (suites.has('webhook'))
    console.log(
      formatWebhookSuite(
        await runWebhookSuite(LOAD_SECONDS, WARMUP_SECONDS, webhookSuiteOptionsFromEnv(process.env)),
        LOAD_SECONDS,
        WARMUP_SECONDS,
      ),
    );

  if (suites.has('corpus')) {
    const corpus = await runCorpusSuite();
    if (!corpus) {
      console.log('Conformance corpus not found: corpus benchmark skipped (set EDICT_SHARED_DIR).\n');
    } else {
      const perEvaluation = corpus.pass.medianUs / corpus.evaluations;
      console.log(
        `Conformance corpus: ${corpus.tests} tests, ${corpus.evaluations} policy × resource evaluations per pass`,
      );
      console.log(
        `  ${(corpus.pass.medianUs / 1000).toFixed(1)} ms per pass, ${perEvaluation.toFixed(1)} µs per evaluation` +
          (parseBaseline ? ` (${(perEvaluation / parseBaseline.medianUs).toFixed(2)}x JSON.parse of the review)` : '') +
          '\n',
      );
    }
  }

  if (suites.has('background')) console.log(formatBackgroundSuite(await runBackgroundSuite(BACKGROUND_NAMESPACES)));
  if (suites.has('reports')) console.log(formatReportsSuite(await runReportsSuite(REPORTS_PODS)));
  if (suites.has('metrics')) console.log(formatMetricsSuite(await runMetricsSuite(METRICS_REVIEWS)));
}

const role = benchChildRole();
if (role) {
  const runner = BENCH_ROLES[role] ?? BACKGROUND_ROLES[role] ?? REPORTS_ROLES[role];
  if (!runner) throw new Error(`unknown bench child role ${role}`);
  serveAsChild(runner);
} else {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
