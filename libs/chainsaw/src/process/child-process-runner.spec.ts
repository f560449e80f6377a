import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ChildProcessRunner } from './child-process-runner';
import { processErrorText } from './process-runner';

const base = { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 10_000 };

describe('ChildProcessRunner', () => {
  it('captures stdout, stderr and the exit code', async () => {
    const result = await new ChildProcessRunner().run({
      ...base,
      command: 'sh',
      args: ['-c', 'echo out; echo err >&2; exit 3'],
    });
    expect(result).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 3, timedOut: false });
    expect(processErrorText(result)).toBe('exit status 3');
  });

  it('passes only the given environment', async () => {
    const result = await new ChildProcessRunner().run({
      ...base,
      env: { ...base.env, ONLY: 'me' },
      command: 'sh',
      args: ['-c', 'echo "$ONLY-$HOME"'],
    });
    expect(result.stdout).toBe('me-\n');
  });

  it('kills the process group at the timeout', async () => {
    const result = await new ChildProcessRunner().run({
      ...base,
      timeoutMs: 200,
      command: 'sh',
      args: ['-c', 'sleep 30 & sleep 30'],
    });
    expect(result.timedOut).toBe(true);
    expect(processErrorText(result)).toBe('signal: killed');
  });

  it('caps each stream', async () => {
    const result = await new ChildProcessRunner({ maxOutputBytes: 10 }).run({
      ...base,
      command: 'sh',
      args: ['-c', 'printf 0123456789abcdef'],
    });
    expect(result.stdout).toBe('0123456789\n... (6 bytes dropped)');
  });

  it('reports a program that cannot start', async () => {
    const result = await new ChildProcessRunner().run({ ...base, command: '/nonexistent/program', args: [] });
    expect(result.exitCode).toBeNull();
    expect(processErrorText(result)).toMatch(/ENOENT/);
  });
});
