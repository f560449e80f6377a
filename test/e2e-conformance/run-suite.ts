/**
 * Runs the suite's tests through `@edict/chainsaw` and turns each result into a report record.
 * Tests listed in apart.json are not run: they need what an embedded cluster lacks (running Pods,
 * cert-manager, another installation), and are reported with that reason.
 *
 * Each group of sibling tests (one parent folder) gets a fresh cluster, as Kyverno's CI gives each
 * slice of the suite a fresh kind cluster: some tests leave objects behind that chainsaw does not
 * track (a policy applied by a script), and a later test must not inherit them. A test listed in
 * installs.json gets a cluster of its own, installed with the settings Kyverno's CI gives it.
 *
 * Timeouts and sleeps are scaled down because the embedded cluster reacts faster than kind, except in
 * tests that wait on the wall clock: a cleanup policy's cron slot comes no sooner on a fast cluster.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  discoverTestFiles,
  runChainsawTests,
  type ChainsawFailure,
  type ChainsawRunOptions,
  type ChainsawTestResult,
} from '@edict/chainsaw';
import type { ApiServerSettings } from '@edict/apiserver';
import { errorMessage, type JsonObject } from '@edict/foundation';
import { EXEC_TIMEOUT_SCALE, LOCAL_DIR, type E2eArgs } from './args';
import type { E2eTestRecord } from './report';
import type { SuiteCluster, SuiteInstall } from './suite-cluster';

/**
 * Install settings Kyverno's CI gives particular tests, keyed by a test folder or a folder above
 * tests (the longest key that is the test's path or a prefix of it applies): its Helm values, as
 * Edict's variables, and its kind cluster configuration, as the API server's settings.
 */
interface InstallVariant {
  readonly why: string;
  readonly env?: Readonly<Record<string, string>>;
  /** kind's `runtimeConfig`/`featureGates` and the Kubernetes version of the job (served API versions). */
  readonly apiServer?: ApiServerSettings;
}

/** The install key that applies to a test: its own path, else the longest folder above it. */
export function installKeyOf(installs: Readonly<Record<string, unknown>>, path: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(installs)) {
    if (key !== path && !path.startsWith(`${key}/`)) continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  return best;
}

/**
 * An entry of apart.json: why the test cannot pass on the embedded cluster; for a test that needs a
 * public registry, also its local twin (a folder of test/e2e-image-verification).
 */
export type ApartEntry = string | { readonly reason: string; readonly twin: string };

/** Why each test counted apart cannot pass on the embedded cluster, by folder relative to the suite. */
export function readApart(): Readonly<Record<string, ApartEntry>> {
  return JSON.parse(readFileSync(resolve('test/e2e-conformance/apart.json'), 'utf8')) as Record<string, ApartEntry>;
}

/** The reason a report shows for a test counted apart, naming its local twin if it has one. */
export function apartReason(entry: ApartEntry): string {
  return typeof entry === 'string' ? entry : `${entry.reason} (local twin: ${LOCAL_DIR}/${entry.twin})`;
}

/** The local twins to run after the suite, with what the run prepared for them. */
export interface LocalTwins {
  /** Folders below args.localDir (`.`: all). */
  readonly paths: readonly string[];
  /** `$values` of the twins' files (the registry's host, images, digests, trust material). */
  readonly values: JsonObject;
  /** Cluster settings the twins need on top of the suite's install (the local registry allowed). */
  readonly env: Readonly<Record<string, string>>;
}

function readInstalls(): Readonly<Record<string, InstallVariant>> {
  return JSON.parse(readFileSync(resolve('test/e2e-conformance/installs.json'), 'utf8')) as Record<
    string,
    InstallVariant
  >;
}

interface TestGroup {
  readonly files: string[];
  readonly install: SuiteInstall;
  /** Run at chainsaw's own timeouts and sleeps (see waitsOnSchedule). */
  readonly realTime: boolean;
  /** A group of local twins: their folder, their `$values`. */
  readonly local?: { readonly values: JsonObject };
}

/**
 * Runs the suite's tests (args.paths, all when none) and then, when given, the local twins.
 * installs.json names a twin by its path below the project (`test/e2e-image-verification/...`).
 */
export async function runSuite(
  args: E2eArgs,
  startCluster: (install: SuiteInstall) => Promise<SuiteCluster>,
  onRecord: (record: E2eTestRecord) => void,
  twins?: LocalTwins,
): Promise<E2eTestRecord[]> {
  const apart = readApart();
  const installs = readInstalls();
  const records: E2eTestRecord[] = [];
  const record = (entry: E2eTestRecord): void => {
    records.push(entry);
    onRecord(entry);
  };
  const groups = new Map<string, TestGroup>();
  const addToGroup = (file: string, path: string, install: string, local?: LocalTwins): void => {
    const installKey = installKeyOf(installs, install);
    const variant = installKey !== undefined ? installs[installKey] : undefined;
    const realTime = waitsOnSchedule(dirname(file));
    // Tests of one folder share a cluster, unless their installs differ.
    const installed = installKey !== undefined ? `${installKey}: ` : '';
    const key = `${local ? 'local:' : ''}${installed}${dirname(path)}${realTime ? ' (real time)' : ''}`;
    const env = { ...local?.env, ...variant?.env };
    const group = groups.get(key) ?? {
      files: [],
      install: { env, ...(variant?.apiServer ? { apiServer: variant.apiServer } : {}) },
      realTime,
      ...(local ? { local: { values: local.values } } : {}),
    };
    group.files.push(file);
    groups.set(key, group);
  };
  if (args.whole || args.paths.length > 0) {
    const roots = args.paths.length > 0 ? args.paths.map((path) => resolve(args.suiteDir, path)) : [args.suiteDir];
    for (const file of discoverTestFiles(roots)) {
      const path = suitePathOf(args.suiteDir, dirname(file));
      const entry = apart[path];
      if (entry) {
        const reason = apartReason(entry);
        record({ path, name: path.split('/').at(-1) ?? path, outcome: 'apart', durationMs: 0, reason });
        continue;
      }
      addToGroup(file, path, path);
    }
  }
  if (twins && twins.paths.length > 0) {
    for (const file of discoverTestFiles(twins.paths.map((path) => resolve(args.localDir, path)))) {
      const path = suitePathOf(args.localDir, dirname(file));
      addToGroup(file, path, `${LOCAL_DIR}/${path}`, twins);
    }
  }
  const queue = [...groups.values()];
  const oneAtATime = lock();
  const aroundTest: ChainsawRunOptions['aroundTest'] = (test, run) =>
    holdsHostPort(test.folder) ? oneAtATime(run) : run();
  const worker = async (): Promise<void> => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      let cluster: SuiteCluster;
      try {
        // One retry: on a loaded machine a controller may miss its start deadline once.
        cluster = await startCluster(group.install).catch(() => startCluster(group.install));
      } catch (error) {
        // A group whose cluster never starts fails its own tests; the other groups still run.
        const dir = group.local ? args.localDir : args.suiteDir;
        for (const file of group.files) {
          const path = suitePathOf(dir, dirname(file));
          record({
            path,
            name: path.split('/').at(-1) ?? path,
            outcome: 'error',
            durationMs: 0,
            reason: `the test cluster did not start: ${errorMessage(error)}`,
            ...(group.local ? { local: true as const } : {}),
          });
        }
        continue;
      }
      try {
        await runChainsawTests({
          paths: group.files,
          kubeconfigPath: cluster.kubeconfigPath,
          env: cluster.env,
          timeoutScale: group.realTime ? 1 : args.timeoutScale,
          execTimeoutScale: EXEC_TIMEOUT_SCALE,
          sleepScale: group.realTime ? 1 : args.sleepScale,
          aroundTest,
          ...(group.local ? { values: group.local.values } : {}),
          onResult: (result) =>
            record(group.local ? { ...recordOf(args.localDir, result), local: true } : recordOf(args.suiteDir, result)),
        });
      } finally {
        await cluster.stop();
      }
    }
  };
  // Groups run side by side, each on its own cluster: a failing test mostly waits out its timeouts.
  await Promise.all(Array.from({ length: Math.min(args.jobs, queue.length) }, worker));
  return records;
}

/**
 * Whether a test's files start `kubectl proxy` or `port-forward`, which listen on a fixed host port.
 * Clusters are isolated from each other but share this host, so such tests run one at a time across
 * them. (Nearly every test of the suite sets `concurrent: false`; on Kyverno's CI that orders tests
 * within one kind cluster, which each of our groups already does by running its tests in sequence.)
 */
function holdsHostPort(folder: string): boolean {
  return readdirSync(folder, { withFileTypes: true }).some(
    (entry) =>
      entry.isFile() && /kubectl\s+(proxy|port-forward)\b/.test(readFileSync(join(folder, entry.name), 'utf8')),
  );
}

/**
 * Whether a test applies a cleanup policy or a DeletingPolicy with a cron `schedule`: its steps then
 * wait for the next slot of the wall clock (up to a minute for an every-minute schedule), which a
 * scaled-down timeout or sleep would cut short by chance, depending on when in the minute the test starts.
 */
function waitsOnSchedule(folder: string): boolean {
  return readdirSync(folder, { withFileTypes: true }).some((entry) => {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) return false;
    const text = readFileSync(join(folder, entry.name), 'utf8');
    return (
      /^kind:\s*((Cluster)?CleanupPolicy|(Namespaced)?DeletingPolicy)\s*$/m.test(text) && /^\s+schedule:/m.test(text)
    );
  });
}

function lock(): <T>(run: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(run);
    tail = result.catch(() => undefined);
    return result;
  };
}

function recordOf(suiteDir: string, result: ChainsawTestResult): E2eTestRecord {
  const path = suitePathOf(suiteDir, result.path);
  const base = { path, name: result.name, durationMs: result.durationMs };
  switch (result.outcome) {
    case 'pass':
      return { ...base, outcome: 'pass' };
    case 'skip':
      return { ...base, outcome: 'apart', reason: result.message ?? 'skipped by the test itself' };
    case 'error':
      return { ...base, outcome: 'error', reason: result.message ?? result.failure?.reason ?? 'error' };
    case 'fail':
      return { ...base, outcome: 'fail', ...whereAndWhy(result.failure) };
  }
}

function whereAndWhy(failure: ChainsawFailure | undefined): Pick<E2eTestRecord, 'step' | 'operation' | 'reason'> {
  if (!failure) return { reason: 'failed without a recorded failure' };
  const operation = failure.operation;
  const target = operation ? (operation.file ?? operation.resource ?? `#${operation.index + 1}`) : undefined;
  return {
    step: `${failure.step ?? 'test'} (${failure.phase})`,
    ...(operation ? { operation: `${operation.type} ${target}` } : {}),
    reason: failure.diff ? `${failure.reason}\n${failure.diff}` : failure.reason,
  };
}

function suitePathOf(suiteDir: string, folder: string): string {
  return relative(suiteDir, folder).split(sep).join('/');
}
