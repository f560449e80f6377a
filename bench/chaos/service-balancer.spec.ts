import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClusterCa, type CertifiedKey } from '@edict/apiserver';
import { ServiceBalancer } from './service-balancer';

const PROBE_INTERVAL_MS = 100;

/** A replica: answers its name, and /readyz with 200 or 503 as told. */
interface Backend {
  name: string;
  port: number;
  ready: boolean;
  server: Server;
}

let tls: CertifiedKey;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  tls = await (await createClusterCa()).serving({ dns: ['localhost'], ips: ['127.0.0.1'] });
});

afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

async function backend(name: string): Promise<Backend> {
  const state = { ready: true };
  const server = createServer({ key: tls.keyPem, cert: tls.certPem }, (req, res) => {
    if (req.url === '/readyz') res.writeHead(state.ready ? 200 : 503).end();
    else res.end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, { name, port, server });
}

/** One request over a new connection; the backend's name, or the error's code. */
function call(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

async function balancerFor(...backends: Backend[]): Promise<{ balancer: ServiceBalancer; port: number }> {
  const balancer = new ServiceBalancer({
    probeIntervalMs: PROBE_INTERVAL_MS,
    probePath: '/readyz',
    probeTimeoutMs: 500,
  });
  const port = await balancer.start();
  open.push({ close: () => balancer.stop() });
  for (const each of backends) balancer.add(each.port);
  await expect.poll(() => balancer.readyPorts().length).toBe(backends.length);
  return { balancer, port };
}

describe('ServiceBalancer', () => {
  it('spreads connections over the ready endpoints', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const { port } = await balancerFor(a, b);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(port)));
    expect(answers.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  });

  it('drops an endpoint once its readiness fails, and takes it back when it passes', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const { balancer, port } = await balancerFor(a, b);
    a.ready = false;
    await expect.poll(() => balancer.readyPorts()).toEqual([b.port]);
    expect(await Promise.all([call(port), call(port), call(port)])).toEqual(['b', 'b', 'b']);
    a.ready = true;
    await expect.poll(() => balancer.readyPorts().length).toBe(2);
  });

  it('drops an endpoint that stopped listening; with none ready a connection is closed at once', async () => {
    const a = await backend('a');
    const { balancer, port } = await balancerFor(a);
    await new Promise((resolve) => a.server.close(resolve));
    await expect.poll(() => balancer.readyPorts()).toEqual([]);
    expect(await call(port)).toBe('ECONNRESET');
    expect(balancer.noEndpoint).toBe(1);
  });
});
