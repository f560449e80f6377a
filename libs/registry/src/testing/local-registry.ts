/**
 * A real OCI registry for tests and local mode: Debian's `docker-registry` (CNCF distribution 2.8)
 * on 127.0.0.1, storing in a temporary directory, no auth, deletes enabled. It has no referrers
 * API, so referrers go through the fallback tag schema, as with many registries in the field.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DOCKER_REGISTRY_BINARY = '/usr/bin/docker-registry';

export interface LocalRegistryOptions {
  /** The binary (default `EDICT_DOCKER_REGISTRY` from the environment, else /usr/bin/docker-registry). */
  readonly binary?: string;
  /** A fixed port (default: a free one). */
  readonly port?: number;
  /** Where images are stored (default: a temporary directory removed by stop()). */
  readonly storageDir?: string;
  /** Longest wait for `/v2/` to answer (default 20 s). */
  readonly startTimeoutMs?: number;
  /** The registry's own log on this process's stderr (default: kept quiet, shown when it fails). */
  readonly verbose?: boolean;
  /**
   * Bearer auth with the test's own token endpoint: distribution's `silly` access controller answers
   * 401 with a challenge naming `realm` and `service` and then takes any bearer token, so the realm
   * (a server the test runs) decides who gets in and with which scopes.
   */
  readonly tokenAuth?: { readonly realm: string; readonly service: string };
}

export interface LocalRegistry {
  /** `127.0.0.1:PORT`, the registry part of image references. */
  readonly host: string;
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Where the registry stores (distribution's layout: `docker/registry/v2/...`), e.g. to tamper in tests. */
  readonly storageDir: string;
  /** Stops the registry and removes its temporary directory. */
  stop(): Promise<void>;
}

export class LocalRegistryError extends Error {
  override readonly name = 'LocalRegistryError';
}

/** Starts docker-registry and resolves once `/v2/` answers (200, or 401 with tokenAuth). */
export async function startLocalRegistry(options: LocalRegistryOptions = {}): Promise<LocalRegistry> {
  const binary = options.binary ?? process.env.EDICT_DOCKER_REGISTRY ?? DOCKER_REGISTRY_BINARY;
  if (!existsSync(binary)) {
    throw new LocalRegistryError(
      `the OCI registry binary ${binary} is missing: install it with \`sudo apt-get install -y docker-registry\` ` +
        '(or run scripts/ensure-docker-registry.sh), or point EDICT_DOCKER_REGISTRY at a CNCF distribution binary',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'edict-registry-'));
  try {
    // A free port can be taken between the probe and the registry's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      try {
        return await launch(binary, dir, port, options);
      } catch (error) {
        if (options.port !== undefined || attempt >= 3 || !(error instanceof PortTakenError)) throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

class PortTakenError extends LocalRegistryError {}

async function launch(
  binary: string,
  dir: string,
  port: number,
  options: LocalRegistryOptions,
): Promise<LocalRegistry> {
  const host = `127.0.0.1:${port}`;
  const storage = options.storageDir ?? join(dir, 'data');
  const configPath = join(dir, 'config.yml');
  writeFileSync(configPath, registryConfig(host, storage, options.tokenAuth));
  const child = spawn(binary, ['serve', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    if (options.verbose) process.stderr.write(chunk);
    output = `${output}${chunk.toString('utf8')}`.slice(-8192);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', (error) => {
    output = `${output}\n${error.message}`;
  });
  // A test run that ends without stop() (a crash, a forgotten afterAll) leaves no registry behind.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    process.removeListener('exit', onExit);
    await kill(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(host, exited, options.startTimeoutMs ?? 20_000);
  } catch (error) {
    process.removeListener('exit', onExit);
    await kill(child, exited);
    const reason = error instanceof Error ? error.message : String(error);
    const text = `docker-registry on ${host} did not start: ${reason}${output ? `\n${output.trim()}` : ''}`;
    throw /address already in use/i.test(output) ? new PortTakenError(text) : new LocalRegistryError(text);
  }
  return { host, url: `http://${host}`, storageDir: storage, stop };
}

/** Distribution's configuration: loopback only, filesystem storage, deletes on, quiet logs. */
function registryConfig(host: string, storage: string, tokenAuth: LocalRegistryOptions['tokenAuth']): string {
  const auth = tokenAuth
    ? [
        'auth:',
        '  silly:',
        `    realm: ${JSON.stringify(tokenAuth.realm)}`,
        `    service: ${JSON.stringify(tokenAuth.service)}`,
      ]
    : [];
  return [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(storage)}`,
    '  delete:',
    '    enabled: true',
    '  maintenance:',
    '    uploadpurging:',
    '      enabled: false',
    ...auth,
    'http:',
    `  addr: ${host}`,
    '',
  ].join('\n');
}

async function waitUntilReady(host: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let stopped: number | null | undefined;
  void exited.then((code) => (stopped = code ?? -1));
  while (Date.now() < deadline) {
    if (stopped !== undefined) throw new LocalRegistryError(`it exited with code ${stopped}`);
    // 401: up, with tokenAuth asking for a token first.
    const status = await probe(host);
    if (status === 200 || status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new LocalRegistryError(`/v2/ did not answer within ${timeoutMs} ms`);
}

function probe(host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(`http://${host}/v2/`, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function kill(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
