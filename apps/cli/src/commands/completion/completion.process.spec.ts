import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '@edict/kyverno-test/testing';
import { runCli } from '../../testing/run-cli';

const installed = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** Runs the bash script's completion function on the words typed (the last is the word completed). */
async function bashComplete(script: string, cases: string[][], dir: string): Promise<string[]> {
  const file = join(dir, 'edict.bash');
  writeFileSync(file, script);
  const calls = cases
    .map((words) => {
      const array = words.map((word) => `'${word}'`).join(' ');
      return `COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _edict; echo "\${COMPREPLY[*]}"`;
    })
    .join('\n');
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', `source ${file}\ncomplete -p edict\n${calls}`], {
    encoding: 'utf8',
    cwd: dir,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').slice(0, cases.length + 1);
}

describe('edict completion in the shells', () => {
  it('completes commands, sub-commands, flags and flag choices in bash', async () => {
    const dir = writeTree({ 'policy.yaml': 'x' });
    const { out } = await runCli(['completion', 'bash']);
    const [registered, ...replies] = await bashComplete(
      out,
      [
        ['edict', ''],
        ['edict', 'o'],
        ['edict', 'oci', ''],
        ['edict', 'oci', 'push', '--'],
        ['edict', 'oci', 'push', '-i', 'reg/x', '--p'],
        ['edict', 'test', '-o', ''],
        ['edict', 'test', '--output', 'j'],
        ['edict', 'completion', ''],
        ['edict', 'apply', '--warn'],
        ['edict', '--help', 'te'],
      ],
      dir,
    );
    expect(registered).toBe('complete -o default -F _edict edict');
    expect(replies).toEqual([
      'version test apply jp docs create fix migrate oci completion help',
      'oci',
      'push pull',
      '--image --policy --insecure --help',
      '--policy',
      'table json junit',
      'json junit',
      'bash zsh fish powershell',
      '--warn-no-pass --warn-exit-code',
      'test',
    ]);
  });

  it('leaves files to the shell where a path is expected (-o default)', async () => {
    const dir = writeTree({ 'policy.yaml': 'x' });
    const { out } = await runCli(['completion', 'bash']);
    const [, pushPath, pullDir] = await bashComplete(
      out,
      [
        ['edict', 'oci', 'push', '-p', 'pol'],
        ['edict', 'oci', 'pull', '-i', 'x', ''],
      ],
      dir,
    );
    expect(pushPath).toBe('');
    expect(pullDir).toBe('');
  });

  it.runIf(installed('zsh'))('loads in zsh', async () => {
    const { out } = await runCli(['completion', 'zsh']);
    const dir = writeTree({ _edict: out });
    const run = spawnSync(
      'zsh',
      ['-f', '-c', `autoload -U compinit; compinit -u; source ${join(dir, '_edict')}; echo ok`],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stdout.trim()).toBe('ok');
  });

  it.runIf(installed('fish'))('loads in fish', async () => {
    const { out } = await runCli(['completion', 'fish']);
    const dir = writeTree({ 'edict.fish': out });
    const run = spawnSync('fish', ['-c', `source ${join(dir, 'edict.fish')}; complete -C 'edict oci '`], {
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('push');
  });
});
