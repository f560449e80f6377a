/**
 * Local mode's image verification walkthrough (the README's "admit only signed images" block), run
 * against the launcher's cluster (started in-process, with the README's example policies and the
 * registry settings `npm run registry` prints) and a local registry on a free port in place of
 * 127.0.0.1:5000. kubectl commands run with the real kubectl; `npm run sign-image -- ...` runs the
 * tool in-process (its build is what the npm script adds). Each command must print the lines shown
 * under it, and fail exactly when an error is shown.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TIMINGS } from '@edict/admission-controller/testing';
import { startLocalCluster, type LocalCluster } from '@edict/launcher';
import { missingLines, readReadmeSteps } from '@edict/launcher/testing';
import { startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { parseSignImageArgs, signImage } from './sign-image';

const WALKTHROUGH = resolve(__dirname, '../../README.md');
const README_HOST = '127.0.0.1:5000';
const SIGN_IMAGE = 'npm run sign-image -- ';
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const hasKubectl = !kubectl.error && kubectl.status === 0;

describe('local mode: image verification walkthrough', () => {
  const steps = readReadmeSteps(WALKTHROUGH, '<!-- image-walkthrough:start -->', '<!-- image-walkthrough:end -->');

  it('signs an image, applies a policy, shows the unsigned image denied and the signed one admitted', () => {
    const commands = steps.map((step) => step.command);
    expect(commands[0]).toBe('export KUBECONFIG=$PWD/.edict/kubeconfig');
    expect(commands.filter((command) => command.startsWith(SIGN_IMAGE))).toHaveLength(2);
    expect(commands.some((command) => command.startsWith('kubectl run unsigned'))).toBe(true);
    expect(commands.some((command) => command.startsWith('kubectl run signed'))).toBe(true);
  });

  describe.skipIf(!hasKubectl)('against the launcher and a local registry', () => {
    let registry: LocalRegistry;
    let cluster: LocalCluster;
    const cwd = mkdtempSync(join(tmpdir(), 'edict-image-walkthrough-'));

    beforeAll(async () => {
      registry = await startLocalRegistry();
      cluster = await startLocalCluster({
        apiPort: 0,
        kubeconfigPath: join(cwd, '.edict', 'kubeconfig'),
        examplesDir: resolve(__dirname, '../../examples'),
        env: { EDICT_REGISTRY_ALLOWED_ADDRESSES: '127.0.0.1', EDICT_INSECURE_REGISTRIES: registry.host },
        controller: { port: 0, ...TEST_TIMINGS },
        logger: false,
        readyTimeoutMs: 15_000,
      });
    }, 60_000);

    afterAll(async () => {
      await cluster?.stop();
      await registry?.stop();
    });

    it('works verbatim: every command prints what the walkthrough shows', async () => {
      const host = (text: string): string => text.split(README_HOST).join(registry.host);
      const { KUBECONFIG: _unset, ...env } = process.env;
      const shellEnv = {
        ...env,
        KUBECONFIG: join(cwd, '.edict', 'kubeconfig'),
        KUBECACHEDIR: join(cwd, '.kube-cache'),
      };
      for (const [index, step] of steps.entries()) {
        if (step.command.startsWith('export KUBECONFIG=')) continue;
        const command = host(step.command);
        const result = command.startsWith(SIGN_IMAGE)
          ? await runSignImage(command.slice(SIGN_IMAGE.length), cwd)
          : await runBash(command, cwd, shellEnv);
        const expected = step.expected.map(host);
        const context = `step ${index + 1}: ${command.split('\n')[0]}\nprinted:\n${result.output.join('\n')}`;
        const shouldFail = expected.some((line) => line.startsWith('Error from server'));
        expect(result.exitCode !== 0, context).toBe(shouldFail);
        expect(missingLines(expected, result.output), context).toEqual([]);
      }
    }, 120_000);
  });
});

interface StepResult {
  readonly output: string[];
  readonly exitCode: number;
}

async function runSignImage(argv: string, cwd: string): Promise<StepResult> {
  const output: string[] = [];
  try {
    await signImage(parseSignImageArgs(argv.split(/\s+/).filter(Boolean), cwd), (line) => output.push(line));
    return { output, exitCode: 0 };
  } catch (error) {
    output.push(`sign-image: ${error instanceof Error ? error.message : String(error)}`);
    return { output, exitCode: 1 };
  }
}

/** Runs one command in bash (asynchronously: the API server answers from this very process). */
function runBash(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<StepResult> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', `exec 2>&1\n${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ output: output.split('\n').map((line) => line.trim()), exitCode: code ?? 1 });
    });
  });
}
