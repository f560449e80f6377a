// "A certificate rotation under continuous HTTPS requests fails none of them": two replicas serve
// HTTPS with live contexts, a client trusting the published CA bundle hammers both, and the leader
// rotates the serving certificate and then the CA mid-stream.
import { request as httpsRequest, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALWAYS_LEADER, NEVER_LEADER } from '@edict/leader';
import type { TlsMaterial } from '../material/tls-material';
import { startCertReplica, type CertReplica } from '../testing';
import { createLiveHttpsServer } from './live-tls';

Logger.overrideLogger(false);

/** How late the client applies a new bundle, and how long the renewer waits before using a new CA. */
const CLIENT_LAG_MS = 300;
const PROPAGATION_MS = 1500;

let apiserver: InMemoryApiServer;
let kubeconfig: string;
const replicas: CertReplica[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  apiserver = new InMemoryApiServer();
  const { url } = await apiserver.start({ host: '127.0.0.1', port: 0 });
  kubeconfig = kubeconfigFor({ server: url });
  apiserver.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'edict' } });
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(replicas.map((replica) => replica.close()));
  await apiserver.stop();
});

async function replica(leader: boolean): Promise<CertReplica> {
  const started = await startCertReplica(kubeconfig, leader ? ALWAYS_LEADER : NEVER_LEADER, {
    serviceName: 'edict-svc',
    namespace: 'edict',
    extraDnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    // Well above the client's lag (and watch latency), short for the test's run time.
    caPropagationMs: PROPAGATION_MS,
    watchRetryMs: 50,
  });
  replicas.push(started);
  return started;
}

async function serve(material: TlsMaterial): Promise<number> {
  await material.ready();
  const server = createLiveHttpsServer(material, (_request, response) => {
    response.end('ok');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Outcome {
  readonly ok: boolean;
  readonly serial?: string;
  readonly error?: string;
}

/** One request on a fresh connection, trusting exactly `ca`; with SNI half the time. */
function get(port: number, ca: string, sni: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        ca,
        agent: false,
        ...(sni ? { servername: 'localhost' } : {}),
        timeout: 5000,
      },
      (response) => {
        const serial = (response.socket as TLSSocket).getPeerCertificate().serialNumber;
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body === 'ok' ? { ok: true, serial } : { ok: false, error: `body ${body}` }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve({ ok: false, error: error.message }));
    request.end();
  });
}

describe('live TLS under rotation', () => {
  it('rotating the serving certificate and then the CA fails none of the continuous requests', async () => {
    const leader = await replica(true);
    const follower = await replica(false);
    // The client's view of the bundle: another reader, as a webhook caller reading the CA Secret.
    const client = await replica(false);
    const ports = [await serve(leader.material), await serve(follower.material)];
    await client.material.ready();
    // A real client learns the bundle late (controller copies it into the webhook configuration, the
    // API server's informer sees it): apply each published bundle only CLIENT_LAG_MS after it appears.
    let trusted = client.material.current()!.caBundlePem;
    client.material.onChange((snapshot) => {
      setTimeout(() => (trusted = snapshot.caBundlePem), CLIENT_LAG_MS);
    });

    let stop = false;
    let total = 0;
    const failures: string[] = [];
    const served = new Set<string>();
    const worker = async (index: number): Promise<void> => {
      for (let i = 0; !stop && i < 20_000; i++) {
        const outcome = await get(ports[(index + i) % ports.length]!, trusted, (index + i) % 2 === 0);
        total++;
        if (outcome.ok) served.add(outcome.serial!);
        else failures.push(outcome.error!);
      }
    };
    const workers = Array.from({ length: 4 }, (_, index) => worker(index));
    const servedBy = async (serial: string): Promise<boolean> =>
      (await Promise.all(ports.map((port) => get(port, trusted, false)))).every((outcome) => outcome.serial === serial);

    try {
      await expect.poll(() => total, { timeout: 5000 }).toBeGreaterThan(20);
      const initial = leader.material.current()!;

      // 1. A new serving certificate from the same CA.
      expect(await leader.renewer.reconcile({ force: 'leaf' })).toMatchObject({ leaf: 'issued' });
      const renewed = (await leader.material.refresh())!;
      expect(renewed.leaf.serialNumber).not.toBe(initial.leaf.serialNumber);
      await expect.poll(() => servedBy(renewed.leaf.serialNumber), { timeout: 5000 }).toBe(true);
      const beforeCa = total;
      await expect.poll(() => total, { timeout: 5000 }).toBeGreaterThan(beforeCa + 20);

      // 2. A new CA: published first, the leaf it signs follows after propagation, driven by a
      //    scheduler-like loop that just calls reconcile().
      expect(await leader.renewer.reconcile({ force: 'ca' })).toMatchObject({ ca: 'rotated', leaf: 'deferred' });
      let moved = false;
      for (let attempt = 0; attempt < 60 && !moved; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        moved = (await leader.renewer.reconcile()).leaf === 'issued';
      }
      expect(moved).toBe(true);
      const rotated = (await leader.material.refresh())!;
      expect(rotated.caSerialNumbers).toHaveLength(2);
      await expect.poll(() => servedBy(rotated.leaf.serialNumber), { timeout: 5000 }).toBe(true);
      const afterCa = total;
      await expect.poll(() => total, { timeout: 5000 }).toBeGreaterThan(afterCa + 20);

      expect([...served]).toEqual(
        expect.arrayContaining([initial.leaf.serialNumber, renewed.leaf.serialNumber, rotated.leaf.serialNumber]),
      );
    } finally {
      stop = true;
      await Promise.all(workers);
    }
    expect(failures).toEqual([]);
    expect(total).toBeGreaterThan(60);
  });
});
