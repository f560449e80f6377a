/** Runs `edict <args>` in-process, with its output and exit code captured (specs only). */
import { vi } from 'vitest';
import type { EngineFactory } from '@edict/kyverno-test';
import { FakeEngine, type FakeRules } from '@edict/kyverno-test/testing';
import { buildProgram } from '../program';

export interface CliRun {
  readonly out: string;
  readonly err: string;
  readonly code: number;
}

/** On a FakeEngine answering `script`. `cwd`: the working directory the command sees (process.cwd is mocked; restore mocks after each test). */
export function runCli(args: string[], script: FakeRules = () => [], cwd?: string): Promise<CliRun> {
  return runCliOn(new FakeEngine(script).factory(), args, cwd);
}

/** On the given engine (the real one: `defaultEngineFactory`). */
export async function runCliOn(engine: EngineFactory, args: string[], cwd?: string): Promise<CliRun> {
  let out = '';
  let err = '';
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const result = { code: 0 };
  if (cwd) vi.spyOn(process, 'cwd').mockReturnValue(cwd);
  try {
    await buildProgram(io, result, engine).parseAsync(['node', 'edict', ...args]);
  } catch (error) {
    result.code = (error as { exitCode?: number }).exitCode ?? 99;
  }
  return { out, err, code: result.code };
}
