import {
  type Verdict,
  summarize,
  outcome,
  DEFAULT_TEST_CASE_SELECTOR,
  parseTestCaseSelector,
  runTests,
  type EngineFactory,
} from '@edict/kyverno-test';
import type { IvpolPorts } from '@edict/cel-policies';
import { renderTestJson } from '../output/test-json';
import { renderTestJunit } from '../output/test-junit';
import { renderTestMarkdown, renderTestYaml } from '../output/test-markdown';
import { renderTestTable } from '../output/test-table';
import type { CommandIO } from './io';

export type OutputFormat = 'table' | 'json' | 'junit' | 'yaml' | 'markdown';

export interface TestOptions {
  output: OutputFormat;
  detailedResults: boolean;
  strict: boolean;
  failOnly: boolean;
  /** `--file-name`: the test file name looked for below folders (default kyverno-test.yaml and .yml). */
  fileName?: string;
  /** `--test-case-selector`: which results are checked. */
  testCaseSelector?: string;
  /** `--require-tests`: no test file found is an error. */
  requireTests?: boolean;
  /** `--git-branch`: git sources are not supported. */
  gitBranch?: string;
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
  const gitSource = paths.find((path) => /^(https?|ssh|git):\/\/|^git@/.test(path));
  if (options.gitBranch !== undefined || gitSource !== undefined) {
    io.err(
      `Error: git sources are not supported (${gitSource ?? `--git-branch ${options.gitBranch}`}): Edict reads tests from local folders; clone the repository and pass its folder\n`,
    );
    return 1;
  }
  // The default selector keeps every result: tests are then run as without one.
  const selecting = options.testCaseSelector && options.testCaseSelector !== DEFAULT_TEST_CASE_SELECTOR;
  const { selector, errors } = parseTestCaseSelector(selecting ? options.testCaseSelector! : '');
  if (errors.length > 0) io.out(`\nFilter errors:\n${errors.map((error) => `  Error: ${error}\n`).join('')}`);
  const fileName = options.fileName && options.fileName !== 'kyverno-test.yaml' ? options.fileName : undefined;
  const { runs, missing } = await runTests(paths, {
    engineFactory,
    onProgress: (line) => io.err(`${line}\n`),
    ...(selecting ? { selector } : {}),
    ...(fileName ? { fileName } : {}),
    ...(images ? { images } : {}),
  });
  for (const path of missing) io.err(`Error: ${path}: no such file or directory\n`);
  if (runs.length === 0) {
    io.err('\nNo test yamls available\n');
    if (options.requireTests) {
      io.err('Error: no tests found (--require-tests)\n');
      return 1;
    }
    if (errors.length > 0) return 1;
  }
  const outcomes = runs.map((run) => outcome(run, verdict));
  const summary = summarize(outcomes);
  if (options.output === 'json') io.out(renderTestJson(outcomes, summary, verdict));
  else if (options.output === 'junit') io.out(renderTestJunit(outcomes, summary));
  else if (options.output === 'yaml') io.out(renderTestYaml(outcomes, summary, verdict));
  else if (options.output === 'markdown')
    io.out(renderTestMarkdown(outcomes, summary, { detailed: options.detailedResults, failOnly: options.failOnly }));
  else io.out(renderTestTable(outcomes, summary, { detailed: options.detailedResults, failOnly: options.failOnly }));
  return missing.length > 0 || summary.tests.failed > 0 ? 1 : 0;
}
