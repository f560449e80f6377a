import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { FakeEngine } from '@edict/kyverno-test/testing';
import { buildProgram } from './program';
import { runCli } from './testing/run-cli';

/** Every command of the program as the words that reach it, the root first. */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

const program = buildProgram(
  { out: () => undefined, err: () => undefined },
  { code: 0 },
  new FakeEngine(() => []).factory(),
);

describe('edict --help', () => {
  it('shows the commands and examples of the root', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Usage: edict \[options\] \[command\]/);
    for (const name of ['version', 'test', 'apply', 'oci', 'completion'])
      expect(run.out).toMatch(new RegExp(`\\n  ${name}\\b`));
    expect(run.out).toContain('Examples:\n  # Run the Kyverno CLI tests');
  });

  it.each(commandPaths(program).map((path) => [path.join(' ') || '(root)', path]))(
    '%s has a description and an Example in its help',
    async (_name, path) => {
      const command = (path as string[]).reduce(
        (current, name) => current.commands.find((sub) => sub.name() === name)!,
        program,
      );
      expect(command.description().trim()).not.toBe('');
      const run = await runCli([...(path as string[]), '--help']);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/\nExamples?:\n {2}\S/);
    },
  );
});
