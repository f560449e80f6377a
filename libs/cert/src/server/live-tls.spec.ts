import { connect, type PeerCertificate } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveCertOptions } from '../cert.options';
import { ALWAYS_LEADER } from '@edict/leader';
import { SYSTEM_CLOCK } from '../cert-clock';
import { TlsMaterial } from '../material/tls-material';
import { CertRenewer } from '../renewal/cert-renewer';
import { MemorySecretStore } from '../testing';
import { createLiveHttpsServer, LiveSecureContext } from './live-tls';

Logger.overrideLogger(false);

const options = resolveCertOptions({
  serviceName: 'svc',
  namespace: 'ns',
  extraDnsNames: ['localhost'],
  ipAddresses: ['127.0.0.1'],
});
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function peer(port: number, ca: string, servername?: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, ...(servername ? { servername } : {}) }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('live TLS', () => {
  it('refuses to start before the material is ready', () => {
    const material = new TlsMaterial(options, new MemorySecretStore());
    expect(() => new LiveSecureContext(material)).toThrow('TLS material is not ready yet');
  });

  it('serves the new certificate on new connections, with and without SNI, without a restart', async () => {
    const store = new MemorySecretStore();
    const renewer = new CertRenewer(options, store, ALWAYS_LEADER, SYSTEM_CLOCK);
    const material = new TlsMaterial(options, store);
    await renewer.reconcile();
    const first = await material.ready();
    const server = createLiveHttpsServer(material, (_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;

    expect((await peer(port, first.caBundlePem)).serialNumber).toBe(first.leaf.serialNumber);
    await renewer.reconcile({ force: 'leaf' });
    const second = (await material.refresh())!;
    expect(second.leaf.serialNumber).not.toBe(first.leaf.serialNumber);
    expect((await peer(port, second.caBundlePem)).serialNumber).toBe(second.leaf.serialNumber);
    expect((await peer(port, second.caBundlePem, 'localhost')).serialNumber).toBe(second.leaf.serialNumber);
  });
});
