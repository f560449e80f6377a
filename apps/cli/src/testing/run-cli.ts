/** Runs `edict <args>` in-process on a FakeEngine, with its output and exit code captured (specs only). */
import { vi } from 'vitest';
import { FakeEngine, type FakeRules } from '@edict/kyverno-test/testing';
import { buildProgram } from '../program';

export interface CliRun {
  readonly out: string;
  readonly err: string;
  readonly code: number;
}

/** `cwd`: the working directory the command sees (process.cwd is mocked; restore mocks after each test). */
export async function runCli(args: string[], script: FakeRules = () => [], cwd?: string): Promise<CliRun> {
  let out = '';
  let err = '';
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const result = { code: 0 };
  if (cwd) vi.spyOn(process, 'cwd').mockReturnValue(cwd);
  try {
    await buildProgram(io, result, new FakeEngine(script).factory()).parseAsync(['node', 'edict', ...args]);
  } catch (error) {
    result.code = (error as { exitCode?: number }).exitCode ?? 99;
  }
  return { out, err, code: result.code };
}
