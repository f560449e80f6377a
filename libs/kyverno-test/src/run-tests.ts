import type { IvpolPorts } from '@edict/cel-policies';
import { relative } from 'node:path';
import type { Check, TestOutcome, Verdict } from './check-types';
import { ExpectedFiles } from './compare-resources';
import { discoverTestFiles } from './discovery';
import { evaluateTest } from './evaluate';
import { ResponseIndex } from './response-index';
import { loadTestCase } from './test-case';
import { loadTestFile } from './test-file';
import type { TestCaseSelector } from './test-case-selector';
import type { LoadedTest } from './types';
import type { EngineFactory } from './test-engine';
import { compatibleChecks } from './verdict-compatible';
import { strictChecks } from './verdict-strict';
import { errorMessage } from '@edict/foundation';

export interface RunOptions {
  engineFactory: EngineFactory;
  /**
   * Registry access for ImageValidatingPolicies (`edict test --registry`). Absent: every image
   * verification fails with "image verification is not configured", the CLI reads no registry.
   */
  images?: IvpolPorts;
  /** Progress lines (for stderr). */
  onProgress?: (line: string) => void;
  /** Base for the file names shown in reports. */
  cwd?: string;
  /** The test file name looked for below folders (`--file-name`); default kyverno-test.yaml and .yml. */
  fileName?: string;
  /** Which `results[]` entries are checked (`--test-case-selector`); a test left with none is skipped. */
  selector?: TestCaseSelector;
}

/** One test file run once, judged by both verdicts. */
export interface TestRun {
  file: string;
  name: string;
  errors: string[];
  strict: Check[];
  compatible: Check[];
  /** The rule types the test's policies use (`validate`, `mutate`, `generate`, `verifyImages`), sorted. */
  ruleTypes: string[];
  /**
   * The kinds of the test's policies, sorted: `ClusterPolicy`/`Policy` (with `validate.cel` appended,
   * as `ClusterPolicy/validate.cel`, when a rule validates with CEL), and the kinds of Kyverno's CEL
   * family and of Kubernetes' admission policies (`ValidatingPolicy`, `ValidatingAdmissionPolicy`...).
   */
  policyKinds: string[];
  /** The test-case selector left none of its results: not run, not reported. */
  skipped?: boolean;
}

const RULE_TYPES = ['generate', 'mutate', 'validate', 'verifyImages'] as const;

export interface RunResult {
  runs: TestRun[];
  /** Paths given on the command line that do not exist. */
  missing: string[];
}

export async function runTests(paths: readonly string[], options: RunOptions): Promise<RunResult> {
  const { files, missing } = discoverTestFiles(paths, options.fileName ? new Set([options.fileName]) : undefined);
  const runs: TestRun[] = [];
  for (const file of files) {
    const run = await runTestFile(file, options);
    if (!run.skipped) runs.push(run);
  }
  return { runs, missing };
}

/**
 * Runs one test file; whatever goes wrong is recorded in the run, never thrown. `skipped` when the
 * selector leaves none of its results (Kyverno then skips the test).
 */
export async function runTestFile(file: string, options: RunOptions): Promise<TestRun> {
  const shown = relative(options.cwd ?? process.cwd(), file) || file;
  const run: TestRun = {
    file: shown,
    name: '',
    errors: [],
    strict: [],
    compatible: [],
    ruleTypes: [],
    policyKinds: [],
  };
  try {
    const loaded = loadTestFile(file);
    const { selector } = options;
    const definition = selector ? { ...loaded, results: loaded.results.filter(selector) } : loaded;
    if (selector && definition.results.length === 0) return { ...run, name: definition.name, skipped: true };
    run.name = definition.name;
    options.onProgress?.(`Loading test ${definition.name || shown} (${shown}) ...`);
    const test = loadTestCase(definition);
    run.ruleTypes = RULE_TYPES.filter((type) =>
      test.policies.some((policy) => (policy.spec.rules ?? []).some((rule) => rule[type] !== undefined)),
    );
    run.policyKinds = policyKinds(test);
    const policyCount =
      test.policies.length +
      test.cel.validatingPolicies.length +
      test.cel.imageValidatingPolicies.length +
      test.cel.mutatingPolicies.length +
      test.cel.generatingPolicies.length +
      test.cel.deletingPolicies.length +
      test.cel.validatingAdmissionPolicies.length +
      test.cel.mutatingAdmissionPolicies.length +
      test.cel.unsupported.length;
    options.onProgress?.(
      `  Applying ${policyCount} ${plural(policyCount, 'policy', 'policies')} to ${test.resources.length} ${plural(test.resources.length, 'resource', 'resources')} ...`,
    );
    const evaluation = await evaluateTest(test, options.engineFactory, {
      ...(options.images ? { images: options.images } : {}),
    });
    run.errors.push(...evaluation.errors);
    const index = new ResponseIndex(evaluation.responses, evaluation.celResponses);
    const files = new ExpectedFiles(definition.dir);
    run.strict = strictChecks(test, index, files);
    run.compatible = compatibleChecks(test, index, files);
  } catch (error) {
    run.errors.push(errorMessage(error));
  }
  return run;
}

export function outcome(run: TestRun, verdict: Verdict): TestOutcome {
  const checks = verdict === 'strict' ? run.strict : run.compatible;
  return {
    file: run.file,
    name: run.name,
    errors: run.errors,
    checks,
    passed: run.errors.length === 0 && checks.every((check) => check.passed),
  };
}

function policyKinds(test: LoadedTest): string[] {
  const kinds = new Set<string>();
  for (const policy of test.policies) {
    const cel = (policy.spec.rules ?? []).some((rule) => rule.validate?.cel !== undefined);
    kinds.add(cel ? `${policy.kind}/validate.cel` : policy.kind);
  }
  for (const object of [
    ...test.cel.validatingPolicies,
    ...test.cel.imageValidatingPolicies,
    ...test.cel.mutatingPolicies,
    ...test.cel.generatingPolicies,
    ...test.cel.deletingPolicies,
    ...test.cel.validatingAdmissionPolicies,
    ...test.cel.mutatingAdmissionPolicies,
    ...test.cel.unsupported,
  ])
    kinds.add(object.kind);
  return [...kinds].sort();
}

function plural(count: number, one: string, many: string): string {
  return count === 1 ? one : many;
}
