import type { IvpolPorts } from '@edict/cel-policies';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { isScored, withAutogen, type Policy } from '@edict/engine';
import { formatDiagnostic, formatDuration, type KubeObject, errorMessage } from '@edict/foundation';
import { renderApplyTable } from '../apply/apply-table';
import { DEFAULT_EXCEPTION_TTL_NANOS, renderExceptions } from '../apply/generate-exceptions';
import { readProcessStdin, STDIN_PATH, withStdinFile } from '../apply/stdin';
import { buildPolicyReports, renderReportsJson, renderReportsYaml } from '../apply/policy-report';
import { printGenerated } from '../apply/print-generated';
import {
  addCelResponse,
  addResponse,
  applyExitCode,
  countedErrors,
  countedRules,
  emptyCounts,
  isImageVerification,
  summaryLine,
} from '../apply/result-counts';
import {
  isDirectory,
  evaluateTest,
  type CelEvaluatedResponse,
  type EvaluatedResponse,
  loadPolicyFiles,
  loadResources,
  resourcePath,
  type EngineFactory,
  type InvalidPolicy,
  type LoadedTest,
  type ValuesSpec,
  loadUserInfoFile,
  EMPTY_VALUES,
  EMPTY_CONTEXT,
  loadClusterResources,
  loadContextFile,
  loadJsonPayload,
  loadValuesFile,
  mergeCelDocuments,
} from '@edict/kyverno-test';
import type { CommandIO } from './io';

export interface ApplyOptions {
  resource: string[];
  /** `--target-resource(s)`: targets of mutate-existing policies. */
  targetResources?: string[];
  /** `--exceptions-with-resources`: PolicyExceptions are also read from the resource files. */
  exceptionsWithResources?: boolean;
  /** `--warn-no-pass`: no pass at all exits with the warn exit code. */
  warnNoPass?: boolean;
  /** `--output-format` of the policy report. */
  outputFormat?: 'yaml' | 'json';
  /** Read the resources from the cluster (`--resource` then names the ones to take). */
  cluster: boolean;
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  valuesFile?: string;
  /** `--set key=value` variables, over the values file's. */
  set?: string[];
  userinfo?: string;
  exceptions: string[];
  policyReport: boolean;
  output?: string;
  warnExitCode: number;
  auditWarn: boolean;
  /** `--table`: Kyverno's results table instead of the failures and the summary line. */
  table?: boolean;
  /** `--detailed-results`: the table's MESSAGE column. */
  detailedResults?: boolean;
  /** `--generate-exceptions`: a PolicyException per failure instead of the summary. */
  generateExceptions?: boolean;
  /** `--generated-exception-ttl` in nanoseconds (0: no TTL label). */
  generatedExceptionTtl?: bigint;
  /** `--stdin`: the output is meant for a pipe (no "Applying" line). */
  stdin?: boolean;
  /** Reads stdin, for a `-` policy or resource path. */
  readStdin?: () => string;
  /** `--context-file`: a Context (objects and image data) for CEL policies. */
  contextFile?: string;
  /** `--json`: JSON payload files (instead of resources). */
  json?: string[];
  /** `--parameter-resource`: parameter objects of admission policies and ValidatingPolicies. */
  parameterResources?: string[];
  /** `--crd-paths`: CustomResourceDefinition files, so their kinds resolve. */
  crdPaths?: string[];
  /** `--cluster-wide-resources`, `--batch-size`, `--concurrent`, `--continue-on-error`: cluster reading. */
  clusterWideResources?: boolean;
  batchSize?: number;
  concurrent?: number;
  continueOnError?: boolean;
  /** `--show-performance`: how long reading the resources took. */
  showPerformance?: boolean;
}

const DIVIDER = '----------------------------------------------------------------------';

/** `edict apply`: Kyverno's apply output and exit codes. Returns the exit code. */
export async function applyCommand(
  policyPaths: readonly string[],
  options: ApplyOptions,
  io: CommandIO,
  engineFactory: EngineFactory,
  now = new Date(),
  images?: IvpolPorts,
): Promise<number> {
  const json = options.json ?? [];
  if (options.valuesFile && (options.set ?? []).length > 0)
    return usageError(io, 'pass the values either using set flag or values_file flag');
  if (policyPaths.length === 0) return usageError(io, 'require policy');
  if (policyPaths[0] === STDIN_PATH && options.resource[0] === STDIN_PATH)
    return usageError(io, 'a stdin pipe can be used for either policies or resources, not both');
  if (options.resource.length > 0 && json.length > 0)
    return usageError(io, 'both resource and json files can not be used together, use one or the other');
  if (options.resource.length === 0 && json.length === 0 && !options.cluster)
    return usageError(io, 'resource file(s) or cluster required');
  const output = options.output === undefined ? undefined : resolve(process.cwd(), options.output);
  try {
    if (output) prepareOutput(output);
  } catch (error) {
    return usageError(io, `failed to create file/folder (${errorMessage(error)})`);
  }
  let test: LoadedTest;
  let invalid: InvalidPolicy[];
  const started = performance.now();
  const stdin = { cleanup: () => undefined as void };
  try {
    const readStdin = options.readStdin ?? readProcessStdin;
    const policies = withStdinFile(policyPaths, readStdin);
    const resources = withStdinFile(options.resource, readStdin);
    stdin.cleanup = () => {
      policies.cleanup();
      resources.cleanup();
    };
    ({ test, invalid } = loadApplyInputs(policies.paths, { ...options, resource: resources.paths }));
    if (options.cluster)
      test = await withClusterResources(test, [...test.policies, ...invalid.map((e) => e.policy)], options);
  } catch (error) {
    io.err(`Error: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    stdin.cleanup();
  }
  if (options.showPerformance) printPerformance(io, test, performance.now() - started);
  // Kyverno counts every loaded policy's rules, autogen ones included, before validating them.
  // A CEL policy (ValidatingPolicy, ValidatingAdmissionPolicy, DeletingPolicy) counts as one rule.
  const ruleCount =
    [...test.policies, ...invalid.map((entry) => entry.policy)].reduce(
      (sum, policy) => sum + (withAutogen(policy).spec.rules?.length ?? 0),
      0,
    ) +
    test.cel.validatingPolicies.length +
    test.cel.imageValidatingPolicies.length +
    test.cel.validatingAdmissionPolicies.length +
    test.cel.mutatingPolicies.length +
    test.cel.mutatingAdmissionPolicies.length +
    test.cel.generatingPolicies.length +
    test.cel.deletingPolicies.length;
  const withExceptions = test.exceptions.length > 0 ? ` with ${test.exceptions.length} exception(s)` : '';
  if (!options.policyReport && !options.generateExceptions && !options.stdin) {
    const resourceCount = test.resources.length + test.jsonPayloads.length;
    io.out(`\nApplying ${ruleCount} policy rule(s) to ${resourceCount} resource(s)${withExceptions}...\n`);
  }
  // Kyverno validates each policy first and leaves out those it rejects, one error each.
  for (const { errors } of invalid)
    for (const error of errors) io.err(`Error: policy validation error: ${formatDiagnostic(error)}\n`);
  const evaluation = await evaluateTest(test, engineFactory, images ? { images } : {});
  for (const error of evaluation.errors) io.err(`Error: ${error}\n`);

  const counts = emptyCounts();
  counts.error += invalid.length;
  for (const record of evaluation.responses) {
    addResponse(counts, record, options.auditWarn);
    if (options.policyReport) continue;
    if (
      record.stage === 'mutate' &&
      record.response.rules.some((rule) => rule.status === 'pass') &&
      record.patchedResource
    ) {
      printMutated(io, record, record.patchedResource, [], output);
    }
  }
  for (const record of evaluation.celResponses) {
    addCelResponse(counts, record);
    if (options.policyReport) continue;
    printGenerated(io, record, output);
    // Mutating kinds (MutatingPolicy, MutatingAdmissionPolicy) print their patched resource as classic
    // mutate does, and a mutate-existing MutatingPolicy the targets it patched.
    const passed = record.response.rules.filter((rule) => rule.status === 'pass');
    if (passed.length === 0) continue;
    const targets = passed.flatMap((rule) => rule.patchedTargets ?? []);
    const patched = record.stage === 'mutate' ? record.patchedResource : undefined;
    if (patched || targets.length > 0) printMutated(io, record, patched, targets, output);
  }
  printLeftOutPolicies(io, invalid);
  const reported = () =>
    buildPolicyReports(
      evaluation.responses.filter((r) => r.response.rules.length > 0 && countedRules(r).length > 0),
      options.auditWarn,
      now,
    );
  if (options.policyReport) {
    const reports = reported();
    io.out(`${DIVIDER}\n`);
    if (reports.length === 0) {
      io.out('POLICY REPORT: skip generating policy report (no validate policy found/resource skipped)\n');
    } else {
      const rendered = options.outputFormat === 'json' ? renderReportsJson(reports) : renderReportsYaml(reports);
      io.out(`POLICY REPORT:\n${DIVIDER}\n${rendered}\n`);
    }
  } else if (options.generateExceptions) {
    const clusterReport = reported().find((report) => report.kind === 'ClusterPolicyReport');
    io.out(
      renderExceptions(
        clusterReport,
        options.generatedExceptionTtl ?? DEFAULT_EXCEPTION_TTL_NANOS,
        options.outputFormat ?? 'yaml',
      ),
    );
  } else if (options.table) {
    io.out(
      renderApplyTable(
        evaluation.responses,
        evaluation.celResponses,
        options.detailedResults ?? false,
        options.auditWarn,
      ),
    );
  } else {
    for (const record of evaluation.responses) {
      if (record.stage === 'validate' || isImageVerification(record)) printFailures(io, record, options.auditWarn);
      printErrors(io, record);
    }
    for (const record of evaluation.celResponses) printCelOutcome(io, record);
    io.out(`\n${summaryLine(counts)}\n`);
  }
  if (evaluation.errors.length > 0) return 1;
  const code = applyExitCode(counts, options.warnExitCode);
  if (code === 0 && options.warnNoPass && counts.pass === 0) {
    io.out('exit as no objects satisfied policy\n');
    return options.warnExitCode;
  }
  return code;
}

/**
 * `--output`, as Kyverno prepares it before reading anything: a path whose last segment ends in
 * `.yaml`/`.yml` is a file, created (with its folder) and emptied; any other path is a folder, created.
 */
function prepareOutput(output: string): void {
  const file = /\.ya?ml$/.test(output.split('/').pop() ?? '');
  if (!file) {
    mkdirSync(output, { recursive: true });
    return;
  }
  mkdirSync(dirname(resolve(output)), { recursive: true });
  writeFileSync(output, '');
}

/** Kyverno's git source test: an `http(s)://`, `ssh://`, `git://` or `git@` policy path. */
function isGitSource(path: string): boolean {
  return /^(https?|ssh|git):\/\/|^git@/.test(path);
}

/**
 * `--crd-paths`: each a `.yaml`/`.yml` CustomResourceDefinition file, checked with Kyverno's messages,
 * whose kinds then resolve by plural resource name.
 */
function loadCrdPlurals(paths: readonly string[], cwd: string): LoadedTest['crdPlurals'] {
  const files = paths.map((path) => {
    const file = resolve(cwd, path.endsWith('/') ? path.slice(0, -1) : path);
    if (!/\.ya?ml$/.test(file)) throw new Error(`CRD file must have .yaml or .yml extension: ${file}`);
    if (!existsSync(file)) throw new Error(`CRD file does not exist at path: ${file}`);
    return file;
  });
  return loadClusterResources(files, cwd).crdPlurals;
}

/** `--show-performance`: what was read and how long reading it took. */
function printPerformance(io: CommandIO, test: LoadedTest, millis: number): void {
  io.out(
    `\nResource loading performance:\n  resources: ${test.resources.length}\n  JSON payloads: ${test.jsonPayloads.length}\n  duration: ${formatDuration(BigInt(Math.round(millis * 1e6)))}\n`,
  );
}

function usageError(io: CommandIO, message: string): number {
  io.err(`Error: ${message}\n`);
  return 1;
}

function loadApplyInputs(
  policyPaths: readonly string[],
  options: ApplyOptions,
): { test: LoadedTest; invalid: InvalidPolicy[] } {
  const cwd = process.cwd();
  const gitSource = policyPaths.find(isGitSource);
  if (gitSource !== undefined)
    throw new Error(
      `git sources are not supported (${gitSource}): Edict reads policies from local files; clone the repository and pass its folder`,
    );
  const policyFiles = loadPolicyFiles(policyPaths, cwd);
  const exceptionFiles = loadPolicyFiles(
    [...options.exceptions, ...(options.exceptionsWithResources && !options.cluster ? options.resource : [])],
    cwd,
  );
  const invalid = policyFiles.invalid; // policies in --exception files are not read, as in Kyverno
  const celPolicies =
    policyFiles.cel.validatingPolicies.length +
    policyFiles.cel.imageValidatingPolicies.length +
    policyFiles.cel.validatingAdmissionPolicies.length +
    policyFiles.cel.mutatingPolicies.length +
    policyFiles.cel.mutatingAdmissionPolicies.length +
    policyFiles.cel.generatingPolicies.length +
    policyFiles.cel.deletingPolicies.length;
  if (policyFiles.policies.length + invalid.length + celPolicies === 0)
    throw new Error(`no policies found in ${policyPaths.join(', ')}`);
  const test: LoadedTest = {
    definition: {
      file: 'apply',
      dir: cwd,
      name: 'apply',
      policies: [],
      resources: [],
      targetResources: [],
      exceptions: [],
      clusterResources: [],
      apiCallResponses: [],
      jsonPayloads: [],
      paramResources: [],
      globalContextEntries: [],
      results: [],
    },
    policies: policyFiles.policies,
    exceptions: [...exceptionFiles.exceptions, ...policyFiles.exceptions],
    resources: options.cluster ? [] : loadResources(options.resource, cwd),
    targetResources: loadResources(options.targetResources ?? [], cwd),
    clusterResources: [],
    cloneSources: [],
    crdPlurals: loadCrdPlurals(options.crdPaths ?? [], cwd),
    values: withSetValues(options.valuesFile ? loadValuesFile(resolve(options.valuesFile)) : EMPTY_VALUES, options.set),
    user: options.userinfo ? loadUserInfoFile(resolve(options.userinfo)) : undefined,
    cel: mergeCelDocuments(policyFiles.cel, exceptionFiles.cel),
    jsonPayloads: (options.json ?? []).map((file) => ({ file, value: loadJsonPayload(resolve(cwd, file)) })),
    params: loadResources(options.parameterResources ?? [], cwd),
    context: options.contextFile ? loadContextFile(resolve(cwd, options.contextFile)) : EMPTY_CONTEXT,
    globalContext: [],
  };
  return { test, invalid };
}

/** Kyverno's `--set a=b,c=d`: string values over the values file's, for every policy and resource. */
function withSetValues(values: ValuesSpec, set: readonly string[] = []): ValuesSpec {
  if (set.length === 0) return values;
  const setValues: Record<string, string> = {};
  for (const pair of set) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`--set: expected key=value, got ${JSON.stringify(pair)}`);
    setValues[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return { ...values, setValues: { ...values.setValues, ...setValues } };
}

/**
 * The resources read from the cluster (`--resource` naming the ones to take), their namespaces'
 * labels added to those of the values file (which win).
 */
async function withClusterResources(test: LoadedTest, policies: readonly Policy[], options: ApplyOptions) {
  const { fetchClusterResources } = await import('../apply/cluster-resources');
  const { cel } = test;
  const fetched = await fetchClusterResources(
    policies,
    {
      kubeconfig: options.kubeconfig,
      context: options.context,
      namespace: options.namespace,
      names: options.resource,
      clusterWide: options.clusterWideResources ?? false,
      batchSize: options.batchSize,
      concurrent: options.concurrent,
      continueOnError: options.continueOnError,
    },
    [
      ...cel.validatingPolicies,
      ...cel.imageValidatingPolicies,
      ...cel.mutatingPolicies,
      ...cel.generatingPolicies,
      ...cel.deletingPolicies,
      ...cel.validatingAdmissionPolicies,
      ...cel.mutatingAdmissionPolicies,
    ],
  );
  const namespaceLabels = { ...fetched.namespaceLabels, ...test.values.namespaceLabels };
  return {
    ...test,
    resources: fetched.resources,
    params: [...test.params, ...fetched.params],
    context: { ...test.context, resources: [...test.context.resources, ...fetched.contextResources] },
    values: { ...test.values, namespaceLabels },
  };
}

/**
 * Kyverno lists the policies its validation rejected after the run: under "Invalid Policies" when the
 * reason is an `element.name` variable outside a foreach, otherwise under its (misleading, but
 * user-visible) "Policies Skipped" heading.
 */
function printLeftOutPolicies(io: CommandIO, invalid: readonly InvalidPolicy[]): void {
  const elementOutsideForeach = (entry: InvalidPolicy) =>
    entry.errors[0]?.message.startsWith("variable 'element.name'") ?? false;
  const lists: [string, InvalidPolicy[]][] = [
    [
      'Policies Skipped (as required variables are not provided by the user):',
      invalid.filter((e) => !elementOutsideForeach(e)),
    ],
    ['Invalid Policies:', invalid.filter(elementOutsideForeach)],
  ];
  for (const [heading, entries] of lists) {
    if (entries.length === 0) continue;
    io.out(`${DIVIDER}\n${heading}\n`);
    entries.forEach((entry, i) => io.out(`${i + 1}. ${entry.policy.metadata.name}\n`));
    io.out(`${DIVIDER}\n`);
  }
}

/** Kyverno lists a policy's failed rules under one heading per resource, numbered by rule position. */
function printFailures(io: CommandIO, record: EvaluatedResponse, auditWarn: boolean): void {
  let printed = false;
  record.response.rules.forEach((rule, index) => {
    if (rule.status !== 'fail' || !isScored(record.policy)) return;
    if (!printed) {
      const asWarning = auditWarn && record.response.validationFailureAction === 'Audit';
      io.out(
        `\npolicy ${record.policy.metadata.name} -> resource ${resourcePath(record.resource)} failed${asWarning ? ' as audit warning' : ''}: \n`,
      );
      printed = true;
    }
    io.out(`${index + 1}. ${rule.name}: ${rule.message} \n`);
  });
}

/** A CEL policy's failed and errored rules, under one heading per resource each, numbered by rule position. */
function printCelOutcome(io: CommandIO, record: CelEvaluatedResponse): void {
  const name = record.policy.metadata.name ?? '';
  const resource = record.payloadFile ?? resourcePath(record.resource);
  for (const [status, heading] of [
    ['fail', 'failed'],
    ['error', 'error'],
  ] as const) {
    const rules = record.response.rules.filter((rule) => rule.status === status);
    if (rules.length === 0) continue;
    io.out(`\npolicy ${name} -> resource ${resource} ${heading}: \n`);
    for (const rule of rules) io.out(`${record.response.rules.indexOf(rule) + 1}. ${rule.name}: ${rule.message} \n`);
  }
}

/**
 * The reason of each result counted as `error`, so that `error: N` never stands unexplained (the policy
 * report of `-p` carries them as messages). A mutate error reads as Kyverno prints it; Kyverno prints
 * no validate error, so those read like its failures, under one heading per resource, numbered by
 * rule position.
 */
function printErrors(io: CommandIO, record: EvaluatedResponse): void {
  const errors = countedErrors(record);
  if (errors.length === 0) return;
  const policy = record.policy.metadata.name;
  const resource = resourcePath(record.resource);
  if (record.stage === 'mutate') {
    for (const rule of errors)
      io.out(`\nerror while applying mutate policy ${policy} -> resource ${resource} \nerror:  ${rule.message}\n`);
    return;
  }
  io.out(`\npolicy ${policy} -> resource ${resource} error: \n`);
  for (const rule of errors) io.out(`${record.response.rules.indexOf(rule) + 1}. ${rule.name}: ${rule.message} \n`);
}

/**
 * Prints the mutated resource (then its patched targets) as Kyverno's CLI does, or writes them below
 * --output (a folder, or a file prepareOutput emptied); either way followed by Kyverno's "Mutation has
 * been applied successfully."
 */
function printMutated(
  io: CommandIO,
  record: Pick<EvaluatedResponse | CelEvaluatedResponse, 'resource'> & { policy: { metadata: { name?: string } } },
  patched: KubeObject | undefined,
  targets: readonly KubeObject[],
  output: string | undefined,
): void {
  const yaml = (object: KubeObject) => stringify(object, { lineWidth: 0, indentSeq: false });
  if (!output) {
    if (patched)
      io.out(
        `\npolicy ${record.policy.metadata.name ?? ''} applied to ${resourcePath(record.resource)}:\n${yaml(patched)}\n---\n`,
      );
    if (targets.length > 0) {
      io.out('patched targets: \n');
      for (const target of targets) io.out(`\n${yaml(target)}\n---\n\n`);
    }
  } else {
    const file = isDirectory(output)
      ? join(output, `${record.resource.metadata.name ?? 'resource'}-mutated.yaml`)
      : output;
    for (const object of [...(patched ? [patched] : []), ...targets]) appendFileSync(file, `${yaml(object)}\n---\n\n`);
  }
  io.out('\n\nMutation:\nMutation has been applied successfully.');
}
