/**
 * The README's CLI examples (the ```sh block between `<!-- cli-examples:start -->` and
 * `<!-- cli-examples:end -->`), run with the real engine: each `node dist/apps/cli/main.js ...`
 * command goes through the same program as the built CLI, in this process and from the repository's
 * root (no build), and must print the lines the README shows under it, stdout and stderr together as
 * in a terminal. A shown `exit code N` line is the exit code; without one the command must exit 0.
 * `npm run build` is what makes the command exist: nothing to run here.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { missingLines, readReadmeSteps } from '@edict/launcher/testing';
import { buildProgram } from '@edict/cli';

const ROOT = resolve(__dirname, '../..');
const CLI = 'node dist/apps/cli/main.js';
const EXIT_CODE = /^exit code (\d+)$/;

describe('README CLI examples', () => {
  const steps = readReadmeSteps(resolve(ROOT, 'README.md'), '<!-- cli-examples:start -->', '<!-- cli-examples:end -->');
  const cwd = process.cwd();
  beforeAll(() => process.chdir(ROOT));
  afterAll(() => process.chdir(cwd));

  it('are there: apply and test, each with the output it prints', () => {
    const commands = steps.map((step) => step.command).filter((command) => command.startsWith(CLI));
    expect(commands.some((command) => words(command)[0] === 'apply')).toBe(true);
    expect(commands.some((command) => words(command)[0] === 'test')).toBe(true);
    for (const step of steps) {
      if (step.command === 'npm run build') continue;
      expect(step.command.startsWith(`${CLI} `), `not an edict command: ${step.command}`).toBe(true);
      expect(step.expected.length, `no output shown for: ${step.command}`).toBeGreaterThan(0);
    }
  });

  it('print what the README shows under them', async () => {
    for (const step of steps.filter((entry) => entry.command.startsWith(CLI))) {
      const printed: string[] = [];
      const write = (text: string) => void printed.push(text);
      const result = { code: 0 };
      await buildProgram({ out: write, err: write }, result, defaultEngineFactory).parseAsync([
        'node',
        'edict',
        ...words(step.command),
      ]);
      const lines = printed
        .join('')
        .split('\n')
        .map((line) => line.trim());
      const exit = step.expected.map((line) => EXIT_CODE.exec(line)).find((match) => match !== null);
      const context = `${step.command}\nprinted:\n${lines.join('\n')}`;
      expect(result.code, context).toBe(exit ? Number(exit[1]) : 0);
      const shown = step.expected.filter((line) => !EXIT_CODE.test(line));
      expect(missingLines(shown, lines), context).toEqual([]);
    }
  });
});

/**
 * The arguments after `node dist/apps/cli/main.js`: words split at blanks, continued lines joined,
 * an inline `# comment` dropped. Anything the shell would expand or redirect is refused, so the
 * in-process run means what the shell would run.
 */
function words(command: string): string[] {
  const line = command
    .replace(/\\\n/g, ' ')
    .replace(/\s#.*$/, '')
    .slice(CLI.length);
  if (/[$`|&;<>(){}*?'"\\]/.test(line)) throw new Error(`README CLI example needs a shell: ${command}`);
  return line.split(/\s+/).filter((word) => word !== '');
}
