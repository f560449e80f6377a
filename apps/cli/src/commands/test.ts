import { type Verdict, summarize, outcome, runTests, type EngineFactory } from '@edict/kyverno-test';
import type { IvpolPorts } from '@edict/cel-policies';
import { renderTestJson } from '../output/test-json';
import { renderTestJunit } from '../output/test-junit';
import { renderTestTable } from '../output/test-table';
import type { CommandIO } from './io';

export type OutputFormat = 'table' | 'json' | 'junit';

export interface TestOptions {
  output: OutputFormat;
  detailedResults: boolean;
  strict: boolean;
  failOnly: boolean;
}

/** `edict test`: runs every Kyverno test file below the paths. Returns the exit code. */
export async function testCommand(
  paths: readonly string[],
  options: TestOptions,
  io: CommandIO,
  engineFactory: EngineFactory,
  images?: IvpolPorts,
): Promise<number> {
  const verdict: Verdict = options.strict ? 'strict' : 'compatible';
  const { runs, missing } = await runTests(paths, {
    engineFactory,
    onProgress: (line) => io.err(`${line}\n`),
    ...(images ? { images } : {}),
  });
  for (const path of missing) io.err(`Error: ${path}: no such file or directory\n`);
  if (runs.length === 0) io.err('\nNo test yamls available\n');
  const outcomes = runs.map((run) => outcome(run, verdict));
  const summary = summarize(outcomes);
  if (options.output === 'json') io.out(renderTestJson(outcomes, summary, verdict));
  else if (options.output === 'junit') io.out(renderTestJunit(outcomes, summary));
  else io.out(renderTestTable(outcomes, summary, { detailed: options.detailedResults, failOnly: options.failOnly }));
  return missing.length > 0 || summary.tests.failed > 0 ? 1 : 0;
}
