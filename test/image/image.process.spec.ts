/**
 * The container image scripts/image/build.sh makes (docs/image.md), run from its OCI layout: umoci
 * unpacks it, and each entry point runs in the unpacked root filesystem (`unshare --root`, as the
 * image's user, with the image's environment and working directory, nothing of this machine's): the
 * CLI prints its version, the launcher serves a local cluster whose admission controller is ready,
 * and each controller, started alone against that cluster's API server, answers /readyz ready. The
 * image is pushed to a local registry in one command and keeps its digest.
 *
 * It uses the layout in dist/image (`.ci/run` builds it first; `npm run image` rebuilds it) and builds
 * one when there is none. Running as another user needs root (CI runs as root): as anyone else, it skips.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRegistry } from '@edict/registry/testing';

const REPO = resolve(__dirname, '../..');
const OUT = join(REPO, 'dist', 'image');
const LAYOUT = join(OUT, 'oci');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const IS_ROOT = process.getuid?.() === 0;
const NOT_ROOT =
  'skipped: running the image needs root (unshare --root and --setuid; CI runs as root), this is uid ' +
  String(process.getuid?.());
if (!IS_ROOT) console.warn(`test/image/image.process.spec.ts: ${NOT_ROOT}`);

interface ImageConfig {
  config: { User: string; Env: string[]; Entrypoint: string[]; Cmd: string[]; WorkingDir: string };
  rootfs: { diff_ids: string[] };
}
interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

const blobPath = (digest: string) => join(LAYOUT, 'blobs', 'sha256', digest.replace(/^sha256:/, ''));
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

function run(command: string, args: string[], timeout = 120_000) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout, maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr || result.error?.message}`);
  }
  return result.stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** GET a path on 127.0.0.1: status and body, or undefined while nothing answers. */
function get(url: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((done) => {
    const options = { timeout: 5_000, rejectUnauthorized: false };
    const req = (url.startsWith('https:') ? request : httpRequest)(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(undefined));
    req.end();
  });
}

describe.skipIf(!IS_ROOT)('the container image, run from its OCI layout', () => {
  let dir: string;
  let rootfs: string;
  let image: ImageConfig;
  let manifestDigest: string;
  const started: ChildProcess[] = [];

  /** The image's entry point with `args`, as the image runs it: its user, environment and folder. */
  function inImage(args: string[], env: Record<string, string> = {}, entrypoint = image.config.Entrypoint) {
    const [uid, gid] = image.config.User.split(':');
    const environment = Object.fromEntries(
      image.config.Env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    return {
      command: 'unshare',
      args: [
        `--root=${rootfs}`,
        `--wd=${image.config.WorkingDir}`,
        `--setuid=${uid}`,
        `--setgid=${gid}`,
        '--',
        ...entrypoint,
        ...args,
      ],
      env: { ...environment, ...env },
    };
  }

  function start(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
    const { command, args: argv, env: environment } = inImage(args, env);
    const child = spawn(command, argv, { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    return { child, output: () => output };
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  /** Polls `url` until it answers 200 (no fixed wait); fails with the process's output if it exits first. */
  async function ready(url: string, proc: { child: ChildProcess; output: () => string }, seconds = 150) {
    for (let attempt = 0; attempt < seconds * 2; attempt++) {
      if (proc.child.exitCode !== null)
        throw new Error(`exited ${proc.child.exitCode} before ${url} was ready:\n${proc.output()}`);
      const answer = await get(url);
      if (answer?.status === 200) return answer;
      await new Promise((done) => setTimeout(done, 500));
    }
    throw new Error(`${url} not ready:\n${proc.output()}`);
  }

  beforeAll(() => {
    if (!existsSync(join(LAYOUT, 'index.json'))) run('bash', [join(REPO, 'scripts/image/build.sh')], 40 * 60_000);
    run('bash', [join(REPO, 'scripts/image/ensure-tools.sh'), 'umoci', 'skopeo'], 10 * 60_000);
    dir = mkdtempSync(join(tmpdir(), 'edict-image-'));
    run('umoci', ['unpack', '--image', `${LAYOUT}:${VERSION}`, join(dir, 'bundle')], 10 * 60_000);
    rootfs = join(dir, 'bundle', 'rootfs');
    const index = readJson<{ manifests: Descriptor[] }>(join(LAYOUT, 'index.json'));
    manifestDigest = index.manifests[0]!.digest;
    const manifest = readJson<{ config: Descriptor }>(blobPath(manifestDigest));
    image = readJson<ImageConfig>(blobPath(manifest.config.digest));
  }, 45 * 60_000);

  afterAll(async () => {
    await Promise.all(started.map(stop));
    // Tens of thousands of files (node_modules): minutes on a busy disk.
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 10 * 60_000);

  it('is a valid layout named by the package version, four gzip layers, every blob matching its digest', () => {
    const index = readJson<{ manifests: Descriptor[] }>(join(LAYOUT, 'index.json'));
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]!.annotations?.['org.opencontainers.image.ref.name']).toBe(VERSION);
    expect(readFileSync(join(OUT, 'digest'), 'utf8').trim()).toBe(manifestDigest);
    const manifest = readJson<{ config: Descriptor; layers: Descriptor[] }>(blobPath(manifestDigest));
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual(
      Array(4).fill('application/vnd.oci.image.layer.v1.tar+gzip'),
    );
    expect(image.rootfs.diff_ids).toHaveLength(4);
    for (const descriptor of [index.manifests[0]!, manifest.config, ...manifest.layers]) {
      const bytes = readFileSync(blobPath(descriptor.digest));
      expect(bytes.length).toBe(descriptor.size);
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(descriptor.digest);
    }
  });

  it('runs as the non-root user 65532, the entry point choosing the program, the admission controller by default', () => {
    expect(image.config.User).toBe('65532:65532');
    expect(image.config.Entrypoint).toEqual(['/usr/bin/node', '/app/docker/entrypoint.mjs']);
    expect(image.config.Cmd).toEqual(['admission-controller']);
    const passwd = readFileSync(join(rootfs, 'etc', 'passwd'), 'utf8');
    expect(passwd).toContain('nonroot:x:65532:65532:');
    // No shell and no package manager: what Node needs, not a distribution.
    expect(existsSync(join(rootfs, 'bin', 'sh'))).toBe(false);
    expect(existsSync(join(rootfs, 'usr', 'bin', 'apt-get'))).toBe(false);
  });

  it('is the image the chart installs by default: its name, and the chart appVersion as its tag', () => {
    const values = parse(readFileSync(join(REPO, 'charts/edict/values.yaml'), 'utf8')) as {
      image: { registry: string; repository: string; tag: string };
    };
    const chart = parse(readFileSync(join(REPO, 'charts/edict/Chart.yaml'), 'utf8')) as { appVersion: string };
    expect(`${values.image.registry}/${values.image.repository}`).toBe('ghcr.io/edict-policy/edict');
    expect(values.image.tag || chart.appVersion).toBe(VERSION);
  });

  it('runs the CLI: `edict version` prints the version, through /usr/local/bin/edict and the entry point', () => {
    for (const [args, entrypoint] of [
      [['version'], ['/usr/local/bin/edict']],
      [['edict', 'version'], image.config.Entrypoint],
    ] as const) {
      const { command, args: argv, env } = inImage([...args], {}, [...entrypoint]);
      const result = spawnSync(command, argv, { env, encoding: 'utf8', timeout: 60_000 });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`Version: ${VERSION}\nTime: ---\nGit commit ID: ---\n`);
    }
    // Node loading its bundle from a cold, just-unpacked root filesystem on a busy machine.
  }, 180_000);

  it('refuses a name it does not run, listing the names', () => {
    const { command, args, env } = inImage(['shell']);
    const result = spawnSync(command, args, { env, encoding: 'utf8', timeout: 60_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      'one of admission-controller, background-controller, reports-controller, cleanup-controller, launcher, edict',
    );
  }, 90_000);

  it(
    'runs the launcher (a local cluster, its admission controller ready), then each controller alone against its API server',
    async () => {
      const apiPort = await freePort();
      const webhookPort = await freePort();
      const launcher = start(['launcher'], {
        EDICT_API_PORT: String(apiPort),
        EDICT_WEBHOOK_PORT: String(webhookPort),
      });
      const readyz = await ready(`https://127.0.0.1:${webhookPort}/readyz`, launcher);
      expect(JSON.parse(readyz.body)).toMatchObject({ status: 'ok' });
      // The kubeconfig the launcher writes (EDICT_KUBECONFIG of the image) once its webhooks are published.
      const kubeconfig = join(rootfs, 'tmp', '.edict', 'kubeconfig');
      for (let attempt = 0; !existsSync(kubeconfig); attempt++) {
        if (attempt > 300) throw new Error(`no kubeconfig from the launcher:\n${launcher.output()}`);
        await new Promise((done) => setTimeout(done, 500));
      }
      expect(launcher.output()).toContain(`API server  https://127.0.0.1:${apiPort}`);

      const controllers: Array<[string, string, 'http' | 'https']> = [
        ['admission-controller', 'EDICT_WEBHOOK_PORT', 'https'],
        ['background-controller', 'EDICT_BACKGROUND_PORT', 'http'],
        ['reports-controller', 'EDICT_REPORTS_PORT', 'http'],
        ['cleanup-controller', 'EDICT_CLEANUP_PORT', 'https'],
      ];
      for (const [name, portVariable, scheme] of controllers) {
        const port = await freePort();
        const controller = start([name], { KUBECONFIG: '/tmp/.edict/kubeconfig', [portVariable]: String(port) });
        const answer = await ready(`${scheme}://127.0.0.1:${port}/readyz`, controller);
        expect(answer.status, name).toBe(200);
        await stop(controller.child);
      }
      await stop(launcher.child);
    },
    20 * 60_000,
  );

  it('is pushed to a registry in one command, keeping its digest', async () => {
    const registry = await startLocalRegistry();
    try {
      run('bash', [
        join(REPO, 'scripts/image/push.sh'),
        `docker://${registry.host}/edict-policy/edict:${VERSION}`,
        '--dest-tls-verify=false',
      ]);
      const answer = await new Promise<{ status: number; digest: string | undefined }>((done, fail) => {
        const req = httpRequest(
          `${registry.url}/v2/edict-policy/edict/manifests/${VERSION}`,
          { method: 'HEAD', headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } },
          (res) => {
            res.resume();
            done({ status: res.statusCode ?? 0, digest: res.headers['docker-content-digest'] as string | undefined });
          },
        );
        req.on('error', fail);
        req.end();
      });
      expect(answer).toEqual({ status: 200, digest: manifestDigest });
    } finally {
      await registry.stop();
    }
  }, 300_000);
});
