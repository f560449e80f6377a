/**
 * The README's walkthrough, run verbatim with the real kubectl against the launcher (started
 * in-process with its kubeconfig at `<temp>/.edict/kubeconfig`; the commands run in `<temp>`, so
 * `export KUBECONFIG=$PWD/.edict/kubeconfig` means what it means in a clone). Each command must
 * print the lines the README shows under it, and fail exactly when the README shows an error.
 *
 * kubectl is required: CI's machines have it. Without it the spec fails saying so, unless
 * EDICT_SKIP_KUBECTL=1 asks to skip it (the launcher's own e2e spec still covers the same path
 * through the client library).
 */
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCluster, type LocalCluster } from './local/local-cluster';
import { ADMITTED_POD_COMMAND, DENIED_POD_COMMAND } from './guide';
import { FAST_CONTROLLER, REPO_EXAMPLES, tempDir } from './testing/launcher-fixtures';
import { missingLines, readWalkthrough, splitOutput, walkthroughScript } from './testing/readme-walkthrough';

const README = resolve(__dirname, '../../../README.md');
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const hasKubectl = !kubectl.error && kubectl.status === 0;
const skip = !hasKubectl && process.env.EDICT_SKIP_KUBECTL === '1';

describe('README walkthrough', () => {
  const steps = readWalkthrough(README);

  it("is there, and shows the guide's two Pod commands", () => {
    const commands = steps.map((step) => step.command);
    expect(commands[0]).toBe('export KUBECONFIG=$PWD/.edict/kubeconfig');
    expect(commands).toContain(DENIED_POD_COMMAND);
    expect(commands).toContain(ADMITTED_POD_COMMAND);
  });

  if (!hasKubectl) {
    it.skipIf(skip)('needs kubectl', () => {
      throw new Error(
        'kubectl is not on the PATH: the README walkthrough spec runs it. Install kubectl, or set EDICT_SKIP_KUBECTL=1 to skip this spec.',
      );
    });
  }

  describe.skipIf(!hasKubectl)('with kubectl', () => {
    let local: LocalCluster;
    const cwd = tempDir('walkthrough');

    beforeAll(async () => {
      local = await startLocalCluster({
        apiPort: 0,
        kubeconfigPath: join(cwd, '.edict', 'kubeconfig'),
        examplesDir: REPO_EXAMPLES,
        env: {},
        controller: FAST_CONTROLLER,
        logger: false,
        readyTimeoutMs: 15_000,
      });
    });

    afterAll(async () => {
      await local?.stop();
    });

    it('works verbatim: every command prints what the README shows', async () => {
      const { KUBECONFIG: _unset, ...env } = process.env;
      // Asynchronously: the API server and the controller answer from this very process.
      const output = await runBash(walkthroughScript(steps), cwd, { ...env, KUBECACHEDIR: join(cwd, '.kube-cache') });
      const results = splitOutput(output, steps.length);
      steps.forEach((step, index) => {
        const result = results[index]!;
        const context = `step ${index + 1}: ${step.command.split('\n')[0]}\nprinted:\n${result.output.join('\n')}`;
        // kubectl's refusals: a server error, or a 422's `The <Kind> "<name>" is invalid: ...`.
        const shouldFail = step.expected.some((line) => /^(Error from server|The \S+ "[^"]*" is invalid:)/.test(line));
        expect(result.exitCode !== 0, context).toBe(shouldFail);
        expect(missingLines(step.expected, result.output), context).toEqual([]);
      });
    }, 90_000);
  });
});

/** Runs a bash script and resolves with what it printed (stderr is merged by the script). */
function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.on('error', fail);
    child.on('close', () => {
      clearTimeout(timer);
      done(output);
    });
  });
}
