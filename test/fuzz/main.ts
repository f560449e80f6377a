/**
 * `npm run fuzz [-- --seed N --runs N --only NAME]` (`--help` for usage): every fuzz property at
 * length against the real controller, engine and (tenant isolation) the embedded cluster, in-process.
 * Prints the seed (pass it back with --seed to replay a run),
 * per property the cases run, how many were answered and how many refused with a clear 4xx or
 * diagnostics, and exits 1 with fast-check's counterexample on the first failing property.
 */
import { ControllerTarget } from './controller-target';
import { FUZZ_USAGE, FuzzUsageError, parseFuzzArgs, type FuzzPropertyName } from './fuzz-args';
import { IsolationTarget } from './isolation-target';
import {
  compileAndEvaluate,
  malformedReviews,
  policyValidationWebhook,
  tenantIsolation,
  wellFormedReviews,
  type FuzzProperty,
} from './properties';
import { runProperty, type PropertyReport } from './run-property';

/**
 * Share of the total runs per property: the webhook paths cost more per case than the engine alone;
 * the isolation property runs through the embedded cluster (10,000 of the default 100,000).
 */
const SHARES: Record<FuzzPropertyName, number> = {
  wellFormed: 0.25,
  malformed: 0.15,
  policyWebhook: 0.2,
  engine: 0.3,
  isolation: 0.1,
};
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
  const chosen = args.only;
  console.log(
    `fuzz: seed ${seed}, ${total} cases in all${chosen ? ` (${chosen} only)` : ''} (replay with: npm run fuzz -- --seed ${seed} --runs ${total}${chosen ? ` --only ${chosen}` : ''})`,
  );
  const started = performance.now();
  const wanted = (name: FuzzPropertyName) => chosen === undefined || chosen === name;
  const target = chosen === undefined || chosen !== 'isolation' ? await ControllerTarget.start() : undefined;
  const isolation = wanted('isolation') ? await IsolationTarget.start() : undefined;
  const make: Array<[FuzzPropertyName, () => FuzzProperty<never>]> = [
    ['wellFormed', () => wellFormedReviews(target!) as FuzzProperty<never>],
    ['malformed', () => malformedReviews(target!) as FuzzProperty<never>],
    ['policyWebhook', () => policyValidationWebhook(target!) as FuzzProperty<never>],
    ['engine', () => compileAndEvaluate() as FuzzProperty<never>],
    ['isolation', () => tenantIsolation(isolation!) as FuzzProperty<never>],
  ];
  const properties = make
    .filter(([name]) => wanted(name))
    .map(([name, build]): [FuzzProperty<never>, number] => [build(), chosen ? 1 : SHARES[name]]);
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
    await target?.stop();
    await isolation?.stop();
  }
  const cases = reports.reduce((sum, report) => sum + report.runs, 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const isolated = reports.find((report) => report.name === 'isolation: tenant policies');
  if (isolated)
    console.log(`isolation: ${isolated.runs} cases, 0 violations, in ${(isolated.elapsedMs / 1000).toFixed(1)} s`);
  console.log(`fuzz: ${cases} cases, 0 crashes, ${seconds} s`);
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
