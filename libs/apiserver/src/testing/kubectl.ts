/**
 * Specs that run the real kubectl against a server: where kubectl is (KUBECTL, default
 * /usr/bin/kubectl), a throwaway kubeconfig and cache per session, and the rule for its absence:
 * such a spec fails saying so, unless EDICT_SKIP_KUBECTL=1 asks to skip it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, it } from 'vitest';
import { kubeconfigFor } from '../kubeconfig';
import { startServer, type Running } from './http';

export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);
/** Whether a spec without kubectl is skipped (only when asked) rather than failed. */
export const skipWithoutKubectl = !hasKubectl && process.env.EDICT_SKIP_KUBECTL === '1';
export const MISSING_KUBECTL = `no kubectl at ${KUBECTL}: set KUBECTL to its path, or EDICT_SKIP_KUBECTL=1 to skip the specs that run it`;

const execute = promisify(execFile);

export interface KubectlOutcome {
  readonly code: number;
  readonly stdout: string;
  /** Where kubectl prints errors and the server's warnings. */
  readonly stderr: string;
}

export interface KubectlSession {
  readonly dir: string;
  /** The environment kubectl runs with (its KUBECONFIG and HOME in `dir`). */
  readonly env: NodeJS.ProcessEnv;
  /** The arguments every call adds (its cache folder). */
  readonly commonArgs: readonly string[];
  /** Runs kubectl; resolves with stdout, or rejects with stderr in the message. */
  run(...args: string[]): Promise<string>;
  /** Runs kubectl; resolves with its exit code, stdout and stderr, whether it fails or not. */
  attempt(...args: string[]): Promise<KubectlOutcome>;
  /** Writes a file in `dir` and returns its path. */
  file(name: string, text: string): string;
  close(): void;
}

export function kubectlSession(serverUrl: string): KubectlSession {
  const dir = mkdtempSync(join(tmpdir(), 'edict-kubectl-'));
  writeFileSync(join(dir, 'kubeconfig'), kubeconfigFor({ server: serverUrl }));
  const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  const commonArgs = [`--cache-dir=${join(dir, 'cache')}`];
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  return {
    dir,
    env,
    commonArgs,
    file,
    async run(...args) {
      try {
        const { stdout } = await execute(KUBECTL, [...args, ...commonArgs], { env, timeout: 15_000 });
        return stdout;
      } catch (error) {
        const failed = error as { stderr?: string; message: string };
        throw new Error(`kubectl ${args.join(' ')} failed: ${failed.stderr ?? failed.message}`);
      }
    },
    async attempt(...args) {
      try {
        const { stdout, stderr } = await execute(KUBECTL, [...args, ...commonArgs], { env, timeout: 15_000 });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * For a spec file that drives kubectl: a fresh server and session around each test, and a failing
 * test when kubectl is missing (see above). The returned accessors are valid inside tests.
 */
export function kubectlAgainstServer(): { readonly running: Running; readonly session: KubectlSession } {
  let running: Running | undefined;
  let session: KubectlSession | undefined;
  beforeEach(async () => {
    if (!hasKubectl) return;
    running = await startServer();
    session = kubectlSession(running.url);
  });
  afterEach(async () => {
    if (!hasKubectl) return;
    await running?.server.stop();
    session?.close();
  });
  if (!hasKubectl) {
    it.skipIf(skipWithoutKubectl)('needs kubectl', () => {
      throw new Error(MISSING_KUBECTL);
    });
  }
  return {
    get running() {
      return running!;
    },
    get session() {
      return session!;
    },
  };
}

/** kubectl's table output as cells: one array per line, columns split on runs of spaces (empty cells vanish). */
export function tableRows(output: string): string[][] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/));
}
