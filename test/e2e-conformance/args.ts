/** The command line of `npm run e2e-conformance`, parsed and checked in one place. */
import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';

export type OutputFormat = 'table' | 'json' | 'junit';

export interface E2eArgs {
  /** The suite's root folder (EDICT_E2E_DIR, else ../shared/chainsaw beside the project). */
  readonly suiteDir: string;
  /** Folders or test folders to run, relative to the suite; empty: the whole suite. */
  readonly paths: readonly string[];
  /** The local twins' folder (test/e2e-image-verification): tests of Edict's own, run after the suite's. */
  readonly localDir: string;
  /**
   * Twins to run, relative to localDir (`.` for all of them). A run naming no path runs the suite and
   * every twin; a run naming paths runs only those, of either folder.
   */
  readonly localPaths: readonly string[];
  /** No path named: the whole suite and every twin (such a run writes docs/e2e-conformance.md). */
  readonly whole: boolean;
  readonly output: OutputFormat;
  /** Multiplies every chainsaw timeout (the embedded cluster answers in milliseconds, not seconds). */
  readonly timeoutScale: number;
  /** Multiplies every `sleep` (most wait for work the embedded cluster does in milliseconds). */
  readonly sleepScale: number;
  /** Groups of tests run at once, each on its own embedded cluster. */
  readonly jobs: number;
  /** Exit 1 when the admission-only folders pass below test/e2e-conformance/floor.json. */
  readonly checkFloor: boolean;
}

export const USAGE =
  'usage: npm run e2e-conformance -- [paths (in the suite or test/e2e-image-verification)...] [--output table|json|junit] [--timeout-scale X] [--sleep-scale X] [--jobs N] [--check-floor]';

/** Default scale: chainsaw's 30 s assert timeout becomes 6 s, Kyverno's 1m30s becomes 18 s. */
export const DEFAULT_TIMEOUT_SCALE = 0.2;
/**
 * Scale of script and command timeouts (chainsaw's 5 s becomes 10 s): they run host processes,
 * which the embedded cluster does not speed up, and `kyverno` is Edict's Node CLI, slower to start
 * than Kyverno's Go binary, more so on a busy 2-core machine.
 */
export const EXEC_TIMEOUT_SCALE = 2;
/** Default scale of sleeps: the suite's usual 3 s becomes 1.5 s. */
export const DEFAULT_SLEEP_SCALE = 0.5;

/** Default parallelism: most of a run is waiting (timeouts, sleeps), not CPU, even on 2 cores. */
export const DEFAULT_JOBS = 4;

export class ArgsError extends Error {}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): E2eArgs {
  const suiteDir = resolve(cwd, env['EDICT_E2E_DIR'] ?? '../shared/chainsaw');
  const localDir = resolve(cwd, LOCAL_DIR);
  let output: OutputFormat = 'table';
  let timeoutScale = DEFAULT_TIMEOUT_SCALE;
  let sleepScale = DEFAULT_SLEEP_SCALE;
  let checkFloor = false;
  let jobs = DEFAULT_JOBS;
  const paths: string[] = [];
  const localPaths: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--output') {
      const value = argv[++index];
      if (value !== 'table' && value !== 'json' && value !== 'junit') {
        throw new ArgsError(`--output takes table, json or junit, not ${value ?? 'nothing'}\n${USAGE}`);
      }
      output = value;
    } else if (arg === '--timeout-scale' || arg === '--sleep-scale') {
      const value = Number(argv[++index]);
      if (!(value > 0 && value <= 10)) throw new ArgsError(`${arg} takes a number above 0 and at most 10\n${USAGE}`);
      if (arg === '--timeout-scale') timeoutScale = value;
      else sleepScale = value;
    } else if (arg === '--jobs') {
      jobs = Number(argv[++index]);
      if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16)
        throw new ArgsError(`--jobs takes a whole number from 1 to 16\n${USAGE}`);
    } else if (arg === '--check-floor') {
      checkFloor = true;
    } else if (arg.startsWith('-')) {
      throw new ArgsError(`unknown option ${arg}\n${USAGE}`);
    } else {
      const found = suitePath(arg, suiteDir, localDir, cwd);
      (found.local ? localPaths : paths).push(found.path);
    }
  }
  if (!existsSync(suiteDir)) {
    throw new ArgsError(`the chainsaw suite is not at ${suiteDir} (set EDICT_E2E_DIR)`);
  }
  if (checkFloor && paths.length + localPaths.length > 0)
    throw new ArgsError('--check-floor needs the whole suite: name no paths');
  const whole = paths.length + localPaths.length === 0;
  return {
    suiteDir,
    paths,
    localDir,
    localPaths: whole ? ['.'] : localPaths,
    whole,
    output,
    timeoutScale,
    sleepScale,
    jobs,
    checkFloor,
  };
}

/** The local twins of the suite's public-registry tests, relative to the project's root. */
export const LOCAL_DIR = 'test/e2e-image-verification';

/**
 * A path as the user typed it (relative to the suite, or to the current folder), relative to the
 * suite, or to the twins' folder when it is inside that one.
 */
function suitePath(arg: string, suiteDir: string, localDir: string, cwd: string): { path: string; local: boolean } {
  const candidates = [resolve(suiteDir, arg), resolve(cwd, arg)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new ArgsError(`${arg}: no such folder in the suite (${suiteDir}) or here`);
  for (const [dir, local] of [
    [suiteDir, false],
    [localDir, true],
  ] as const) {
    const inside = relative(dir, found);
    if (!inside.startsWith('..') && resolve(dir, inside) === found) {
      return { path: inside === '' ? '.' : inside.split(sep).join('/'), local };
    }
  }
  throw new ArgsError(`${arg}: not inside the suite folder ${suiteDir} nor ${localDir}`);
}
