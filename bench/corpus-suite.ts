import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultEngineFactory, evaluateTest, loadTestCase, loadTestFile, runTests } from '@edict/kyverno-test';
import { measure, type Measurement } from './harness';
import { sharedDir } from './shared-dir';

export interface CorpusSuite {
  tests: number;
  /** Policy × resource evaluations in one pass over the corpus. */
  evaluations: number;
  pass: Measurement;
}

/**
 * The engine over the whole conformance corpus: every test's policies against its resources, as
 * `edict test` runs them, with files read and parsed beforehand so only evaluation is timed.
 */
export async function runCorpusSuite(): Promise<CorpusSuite | undefined> {
  const dir = join(sharedDir(), 'conformance');
  if (!existsSync(dir)) return undefined;
  const { runs } = await runTests([dir], { engineFactory: defaultEngineFactory, cwd: dir });
  const tests = runs
    .filter((run) => run.errors.length === 0)
    .map((run) => loadTestCase(loadTestFile(join(dir, run.file))));
  const evaluations = tests.reduce((sum, test) => sum + test.policies.length * test.resources.length, 0);
  const pass = await measure(
    'corpus pass',
    async () => {
      for (const test of tests) await evaluateTest(test, defaultEngineFactory);
    },
    { batch: 1, budgetMs: 4000, warmupMs: 1000 },
  );
  return { tests: tests.length, evaluations, pass };
}
