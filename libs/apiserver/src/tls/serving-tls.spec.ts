// The embedded API server negotiates as the webhook does: TLS 1.2+, ECDHE with AEAD suites only.
import { connect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '../api-server';
import { createClusterCa, type ClusterCa } from './cluster-ca';

/** A bare TLS handshake: the negotiated protocol and cipher, or why it was refused. */
function handshake(port: number, ca: ClusterCa, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(
      { host: '127.0.0.1', port, ca: ca.certificatePem, servername: 'localhost', ...options },
      () => {
        resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
        socket.destroy();
      },
    );
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code ?? error.message}`));
  });
}

describe('the embedded API server over TLS', () => {
  let server: InMemoryApiServer;
  let ca: ClusterCa;
  let port: number;

  beforeAll(async () => {
    ca = await createClusterCa();
    server = new InMemoryApiServer({ ca });
    ({ port } = await server.start());
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a client that offers only CBC suites', async () => {
    const cbc = 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:AES128-SHA';
    expect(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: `${cbc}@SECLEVEL=0` })).toMatch(/^refused/);
  });

  it('refuses RSA key exchange and TLS 1.1', async () => {
    expect(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'AES128-GCM-SHA256' })).toMatch(/^refused/);
    expect(
      await handshake(port, ca, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }),
    ).toMatch(/^refused/);
  });

  it('accepts TLS 1.3, and TLS 1.2 with an ECDHE AEAD suite', async () => {
    expect(await handshake(port, ca, {})).toBe('TLSv1.3 TLS_AES_128_GCM_SHA256');
    expect(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toBe(
      'TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256',
    );
  });
});
