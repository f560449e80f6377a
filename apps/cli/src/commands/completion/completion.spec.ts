import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../testing/run-cli';
import { buildProgram } from '../../program';
import { FakeEngine } from '@edict/kyverno-test/testing';
import { completionModel } from './completion-model';

const program = () =>
  buildProgram({ out: () => undefined, err: () => undefined }, { code: 0 }, new FakeEngine(() => []).factory());

describe('completion model', () => {
  it('holds every command of the program and every flag of each, read from the program itself', () => {
    const root = program();
    const nodes = completionModel(root);
    const paths = nodes.map((node) => node.path);
    const walk = (command: Command, path: string): string[] => [
      path,
      ...command.commands.flatMap((sub) => walk(sub, `${path} ${sub.name()}`)),
    ];
    expect(paths).toEqual(walk(root, 'edict'));
    expect(paths).toEqual(expect.arrayContaining(['edict oci push', 'edict completion fish']));
    for (const node of nodes) {
      const command = node.path
        .split(' ')
        .slice(1)
        .reduce((current, name) => current.commands.find((sub) => sub.name() === name)!, root);
      const longs = command.options.map((option) => option.long);
      expect(node.flags.map((flag) => flag.names.at(-1))).toEqual([...longs, '--help']);
    }
    const test = nodes.find((node) => node.path === 'edict test')!;
    expect(test.flags.find((flag) => flag.names.includes('--output'))).toMatchObject({
      names: ['-o', '--output'],
      takesValue: true,
      choices: ['table', 'json', 'junit'],
    });
    expect(test.flags.find((flag) => flag.names.includes('--strict'))?.takesValue).toBe(false);
  });

  it('takes in commands registered after it (other commands merged later are covered)', () => {
    const root = program();
    root.command('later').option('--later-flag <x>', 'a flag');
    expect(completionModel(root).find((node) => node.path === 'edict later')?.flags[0].names).toEqual(['--later-flag']);
    expect(completionModel(root)[0].subcommands.map((sub) => sub.name)).toContain('later');
  });
});

describe('edict completion', () => {
  it('prints a bash script registering its function for edict', async () => {
    const run = await runCli(['completion', 'bash']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^# bash completion for edict/);
    expect(run.out).toContain("'edict oci push')");
    expect(run.out.trimEnd().endsWith('complete -o default -F _edict edict')).toBe(true);
  });

  it('prints a zsh script usable from $fpath (#compdef) or sourced (compdef)', async () => {
    const run = await runCli(['completion', 'zsh']);
    expect(run.code).toBe(0);
    expect(run.out.split('\n')[0]).toBe('#compdef edict');
    expect(run.out).toContain('compdef _edict edict');
    expect(run.out).toContain('_edict_walk $((CURRENT - 2))');
  });

  it('prints fish completions with descriptions, and without them on --no-descriptions', async () => {
    const run = await runCli(['completion', 'fish']);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      `complete -c edict -n "__edict_is 'edict oci'" -f -a 'push' -d 'Push policie(s) that are included in an OCI image to OCI registry.'`,
    );
    expect(run.out).toContain(`complete -c edict -n "__edict_is 'edict test'" -s o -l output -x -a 'table json junit'`);
    expect(run.out).toContain(`complete -c edict -n "__edict_is 'edict oci pull'" -s i -l image -r -d`);
    const bare = await runCli(['completion', 'fish', '--no-descriptions']);
    expect(bare.out).toContain(`complete -c edict -n "__edict_is 'edict oci'" -f -a 'push'\n`);
    expect(bare.out).not.toContain("-d 'Push policie(s)");
  });

  it('prints a PowerShell argument completer', async () => {
    const run = await runCli(['completion', 'powershell']);
    expect(run.code).toBe(0);
    expect(run.out).toContain("Register-ArgumentCompleter -Native -CommandName 'edict' -ScriptBlock {");
    expect(run.out).toContain("'edict oci' = @('push', 'pull')");
    expect(run.out).toContain("'edict test|--output' = @('table', 'json', 'junit')");
    expect(run.out).toContain("'edict|oci' = 'Pulls/pushes images that include policie(s) from/to OCI registries.'");
  });

  it('rejects an unknown shell and lists the shells in its help', async () => {
    const run = await runCli(['completion', 'tcsh']);
    expect(run.code).toBe(1);
    expect(run.err).toBe('Error: unknown command "tcsh" for "edict completion"\n');
    const help = await runCli(['completion', '--help']);
    expect(help.out).toMatch(/bash[\s\S]*zsh[\s\S]*fish[\s\S]*powershell/);
  });
});
