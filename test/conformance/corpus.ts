import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  summarize,
  type VerdictSummary,
  defaultEngineFactory,
  outcome,
  runTests,
  type TestRun,
} from '@edict/kyverno-test';

/** The conformance corpus folder: $EDICT_CONFORMANCE_DIR, else ../shared/conformance beside the repo. */
export function corpusDir(): string {
  return process.env.EDICT_CONFORMANCE_DIR ?? resolve(__dirname, '../../../shared/conformance');
}

/** The corpus folder, or an error saying where it was looked for and how to point elsewhere. */
export function requireCorpusDir(): string {
  const dir = corpusDir();
  if (!existsSync(dir)) {
    throw new Error(
      `Kyverno's CLI test corpus is not at ${dir}: put it at ../shared/conformance beside the repository, or set EDICT_CONFORMANCE_DIR`,
    );
  }
  return dir;
}

export interface CorpusScores {
  runs: TestRun[];
  strict: VerdictSummary;
  compatible: VerdictSummary;
  /** Strict verdict on the tests whose policies have only validate rules. */
  validateOnlyStrict: VerdictSummary;
}

export function isValidateOnly(run: TestRun): boolean {
  return run.ruleTypes.length === 1 && run.ruleTypes[0] === 'validate';
}

/** Runs every corpus test in-process with the real engine and scores both verdicts. */
export async function runCorpus(): Promise<CorpusScores> {
  const dir = requireCorpusDir();
  const { runs } = await runTests([dir], { cwd: dir, engineFactory: defaultEngineFactory });
  return {
    runs,
    strict: summarize(runs.map((run) => outcome(run, 'strict'))),
    compatible: summarize(runs.map((run) => outcome(run, 'compatible'))),
    validateOnlyStrict: summarize(runs.filter(isValidateOnly).map((run) => outcome(run, 'strict'))),
  };
}

export function percent(passed: number, failed: number): string {
  const total = passed + failed;
  return total === 0 ? '0.0%' : `${((100 * passed) / total).toFixed(1)}%`;
}

export function scoreLine(label: string, summary: VerdictSummary): string {
  const { tests, checks } = summary;
  return `${label}: tests ${tests.passed}/${tests.passed + tests.failed} (${percent(tests.passed, tests.failed)}), checks ${checks.passed}/${checks.passed + checks.failed} (${percent(checks.passed, checks.failed)})`;
}
