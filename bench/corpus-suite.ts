import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultEngineFactory, evaluateTest, loadTestCase, loadTestFile, runTests } from '@edict/kyverno-test';
import { measureInterleaved, type Measurement } from './harness';
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
  // Timed as the admission rows are (CPU time), so that its ratio to their JSON.parse baseline holds.
  const [pass] = (await measureInterleaved(
    [
      {
        name: 'corpus pass',
        call: async () => {
          for (const test of tests) await evaluateTest(test, defaultEngineFactory);
        },
      },
    ],
    { batch: 1, rounds: 10, sliceMs: 400, warmupMs: 1000 },
  )) as [Measurement];
  return { tests: tests.length, evaluations, pass };
}
