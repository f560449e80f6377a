import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClusterCa, type CertifiedKey } from '@edict/apiserver';
import { ServiceBalancer } from './service-balancer';

const PROBE_INTERVAL_MS = 100;

/** A replica: answers its name, and /readyz with 200 or 503 as told (or not at all while `stalled`). */
interface Backend {
  name: string;
  port: number;
  ready: boolean;
  stalled: boolean;
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
  const state = { ready: true, stalled: false };
  const server = createServer({ key: tls.keyPem, cert: tls.certPem }, (req, res) => {
    if (req.url !== '/readyz') res.end(name);
    else if (!state.stalled) res.writeHead(state.ready ? 200 : 503).end();
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

const FAILURE_THRESHOLD = 3;

async function balancerFor(
  backends: Backend[],
  failureThreshold = FAILURE_THRESHOLD,
): Promise<{ balancer: ServiceBalancer; port: number }> {
  const balancer = new ServiceBalancer({
    probeIntervalMs: PROBE_INTERVAL_MS,
    probePath: '/readyz',
    probeTimeoutMs: 150,
    failureThreshold,
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
    const { port } = await balancerFor([a, b]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(port)));
    expect(answers.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  });

  it('drops an endpoint after failureThreshold failed probes in a row, and takes it back when one passes', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const { balancer, port } = await balancerFor([a, b]);
    const unreadyAt = performance.now();
    a.ready = false;
    await expect.poll(() => balancer.readyPorts()).toEqual([b.port]);
    // Not at the first failure: the probes before the threshold find it unready while it stays in.
    expect(performance.now() - unreadyAt).toBeGreaterThanOrEqual((FAILURE_THRESHOLD - 1) * PROBE_INTERVAL_MS);
    expect(balancer.probeEjections).toBe(1);
    expect(await Promise.all([call(port), call(port), call(port)])).toEqual(['b', 'b', 'b']);
    a.ready = true;
    await expect.poll(() => balancer.readyPorts().length).toBe(2);
  });

  it('keeps an endpoint whose probes time out fewer times in a row than the threshold', async () => {
    const a = await backend('a');
    const { balancer } = await balancerFor([a]);
    a.stalled = true;
    await new Promise((resolve) => setTimeout(resolve, (FAILURE_THRESHOLD - 1) * PROBE_INTERVAL_MS));
    a.stalled = false;
    await new Promise((resolve) => setTimeout(resolve, 3 * PROBE_INTERVAL_MS));
    expect(balancer.readyPorts()).toEqual([a.port]);
    expect(balancer.probeEjections).toBe(0);
  });

  it('drops a removed endpoint at once, whatever its readiness', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const { balancer, port } = await balancerFor([a, b]);
    balancer.remove(a.port);
    expect(balancer.readyPorts()).toEqual([b.port]);
    expect(await Promise.all([call(port), call(port)])).toEqual(['b', 'b']);
  });

  it('drops an endpoint that stopped listening at its next probe; with none ready a connection is closed at once', async () => {
    const a = await backend('a');
    // A threshold no run reaches: only the refused connection can take it out.
    const { balancer, port } = await balancerFor([a], 1_000);
    await new Promise((resolve) => a.server.close(resolve));
    await expect.poll(() => balancer.readyPorts()).toEqual([]);
    expect(balancer.probeEjections).toBe(0);
    expect(await call(port)).toBe('ECONNRESET');
    expect(balancer.noEndpoint).toBe(1);
  });
});
