/**
 * `npm run fuzz [-- --seed N --runs N]` (`--help` for usage): every fuzz property at length against the real
 * controller and engine, in-process. Prints the seed (pass it back with --seed to replay a run),
 * per property the cases run, how many were answered and how many refused with a clear 4xx or
 * diagnostics, and exits 1 with fast-check's counterexample on the first failing property.
 */
import { ControllerTarget } from './controller-target';
import { FUZZ_USAGE, FuzzUsageError, parseFuzzArgs } from './fuzz-args';
import {
  compileAndEvaluate,
  malformedReviews,
  policyValidationWebhook,
  wellFormedReviews,
  type FuzzProperty,
} from './properties';
import { runProperty, type PropertyReport } from './run-property';

/** Share of the total runs per property: the webhook paths cost more per case than the engine alone. */
const SHARES = { wellFormed: 0.3, malformed: 0.2, policyWebhook: 0.2, engine: 0.3 } as const;
const DEFAULT_RUNS = 100_000;

function line(report: PropertyReport): string {
  const crashes = report.failure ? 1 : 0;
  return (
    `${report.name.padEnd(32)} ${String(report.runs).padStart(7)} cases` +
    `  ${String(report.answered).padStart(7)} answered  ${String(report.rejected).padStart(7)} refused with a clear error` +
    `  crashes ${crashes}  ${(report.elapsedMs / 1000).toFixed(1)} s` +
    `  (rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB)`
  );
}

async function main(): Promise<number> {
  const args = parseFuzzArgs(process.argv.slice(2));
  if (args.help) {
    console.log(FUZZ_USAGE);
    return 0;
  }
  const seed = args.seed ?? Date.now() % 2 ** 31;
  const total = args.runs ?? DEFAULT_RUNS;
  console.log(
    `fuzz: seed ${seed}, ${total} cases in all (replay with: npm run fuzz -- --seed ${seed} --runs ${total})`,
  );
  const started = performance.now();
  const target = await ControllerTarget.start();
  const properties: Array<[FuzzProperty<never>, number]> = [
    [wellFormedReviews(target) as FuzzProperty<never>, SHARES.wellFormed],
    [malformedReviews(target) as FuzzProperty<never>, SHARES.malformed],
    [policyValidationWebhook(target) as FuzzProperty<never>, SHARES.policyWebhook],
    [compileAndEvaluate() as FuzzProperty<never>, SHARES.engine],
  ];
  const reports: PropertyReport[] = [];
  try {
    for (const [property, share] of properties) {
      const report = await runProperty(property, { seed, numRuns: Math.max(1, Math.round(total * share)) });
      reports.push(report);
      console.log(line(report));
      if (report.failure) {
        console.log(`\n${report.name} failed:\n${report.failure}`);
        return 1;
      }
    }
  } finally {
    await target.stop();
  }
  const cases = reports.reduce((sum, report) => sum + report.runs, 0);
  console.log(`fuzz: ${cases} cases, 0 crashes, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof FuzzUsageError) {
      console.error(`${error.message}\n\n${FUZZ_USAGE}`);
      process.exit(2);
    }
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
