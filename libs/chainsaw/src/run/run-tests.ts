/** Entry point: discovers the tests below the paths and runs them one at a time. */
import { dirname } from 'node:path';
import { type JsonObject, type JsonValue, errorMessage } from '@edict/foundation';
import type { ClusterClient } from '../cluster/cluster-client';
import { KubeClusterClient } from '../cluster/kube-cluster-client';
import { Bindings } from '../expressions/bindings';
import { discoverTestFiles } from '../load/discover';
import { ChainsawLoadError } from '../load/fields';
import { findConfigurationFile, loadConfiguration } from '../load/load-configuration';
import { loadTestFile } from '../load/load-test';
import { DEFAULT_CONFIGURATION, type ChainsawConfiguration, type ChainsawTest } from '../load/model';
import { ChildProcessRunner } from '../process/child-process-runner';
import type { ProcessRunner } from '../process/process-runner';
import { TestContext, type RunSettings } from './context';
import { randomNamespaceName } from './namespace-name';
import type { ChainsawRunOptions, ChainsawTestResult } from './options';
import { runTestSteps } from './run-test';

export async function runChainsawTests(options: ChainsawRunOptions): Promise<ChainsawTestResult[]> {
  const settings = runSettings(options);
  const client = options.clusterClient ?? defaultClient(options);
  const processes = options.processRunner ?? new ChildProcessRunner();
  const explicitConfiguration = options.configPath ? loadConfiguration(options.configPath) : undefined;
  const configurations = new Map<string, ChainsawConfiguration | ChainsawLoadError>();
  const results: ChainsawTestResult[] = [];
  let id = 0;

  const report = (result: ChainsawTestResult): void => {
    results.push(result);
    options.onResult?.(result);
  };

  for (const file of discoverTestFiles(options.paths)) {
    if (options.signal?.aborted) break;
    const folder = dirname(file);
    let tests: ChainsawTest[];
    let configuration: ChainsawConfiguration;
    try {
      configuration = explicitConfiguration ?? configurationFor(folder, configurations);
      tests = loadTestFile(file);
    } catch (error) {
      report(loadErrorResult(file, error));
      continue;
    }
    for (const test of tests) {
      if (options.signal?.aborted) break;
      id++;
      const run = () => runOneTest(test, id, configuration, settings, client, processes, options);
      report(await (options.aroundTest ? options.aroundTest(test, run) : run()));
    }
  }
  return results;
}

/** Runs one loaded test (exported for drivers that load tests themselves). */
export async function runOneTest(
  test: ChainsawTest,
  id: number,
  configuration: ChainsawConfiguration,
  settings: RunSettings,
  client: ClusterClient,
  processes: ProcessRunner,
  options: Pick<ChainsawRunOptions, 'namespaceName'> = {},
): Promise<ChainsawTestResult> {
  const started = Date.now();
  const base = { name: test.name, path: test.folder, file: test.file };
  if (test.skip) return { ...base, outcome: 'skip', durationMs: 0, failures: [], message: 'spec.skip is true' };
  const namespace = test.namespace ?? configuration.namespace ?? (options.namespaceName ?? randomNamespaceName)();
  const context = new TestContext(test, configuration, settings, client, processes, namespace);
  const bindings = Bindings.of({
    namespace,
    values: settings.values,
    test: { id, scenarioId: 1, metadata: test.metadata } as JsonValue,
  });
  try {
    const { failures, errored } = await runTestSteps(context, bindings);
    return {
      ...base,
      outcome: errored ? 'error' : failures.length > 0 ? 'fail' : 'pass',
      durationMs: Date.now() - started,
      namespace,
      ...(failures[0] ? { failure: failures[0] } : {}),
      failures,
    };
  } catch (error) {
    const failure = { phase: 'setup' as const, reason: `internal error: ${(error as Error).stack ?? String(error)}` };
    return { ...base, outcome: 'error', durationMs: Date.now() - started, namespace, failure, failures: [failure] };
  }
}

export function runSettings(options: Partial<ChainsawRunOptions>): RunSettings {
  const positive = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a finite number >= 0, got ${value}`);
    return value;
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? process.env)) if (value !== undefined) env[name] = value;
  return {
    timeoutScale: positive(options.timeoutScale, 1, 'timeoutScale'),
    timeoutFloorMs: positive(options.timeoutFloorMs, 1000, 'timeoutFloorMs'),
    execTimeoutScale: positive(options.execTimeoutScale, 1, 'execTimeoutScale'),
    sleepScale: positive(options.sleepScale, 1, 'sleepScale'),
    pollIntervalMs: positive(options.pollIntervalMs, 100, 'pollIntervalMs'),
    kubeconfigPath: options.kubeconfigPath,
    env,
    values: (options.values ?? {}) as JsonObject,
  };
}

function defaultClient(options: ChainsawRunOptions): ClusterClient {
  if (!options.kubeconfigPath) throw new Error('runChainsawTests needs kubeconfigPath or clusterClient');
  return KubeClusterClient.fromKubeconfigFile(options.kubeconfigPath);
}

function configurationFor(
  folder: string,
  cache: Map<string, ChainsawConfiguration | ChainsawLoadError>,
): ChainsawConfiguration {
  const file = findConfigurationFile(folder);
  if (!file) return DEFAULT_CONFIGURATION;
  let cached = cache.get(file);
  if (!cached) {
    try {
      cached = loadConfiguration(file);
    } catch (error) {
      cached = error instanceof ChainsawLoadError ? error : new ChainsawLoadError(file, '', String(error));
    }
    cache.set(file, cached);
  }
  if (cached instanceof ChainsawLoadError) throw cached;
  return cached;
}

function loadErrorResult(file: string, error: unknown): ChainsawTestResult {
  const message = errorMessage(error);
  const failure = { phase: 'setup' as const, reason: message };
  return {
    name: dirname(file).split('/').pop() ?? file,
    path: dirname(file),
    file,
    outcome: 'error',
    durationMs: 0,
    failure,
    failures: [failure],
    message,
  };
}
