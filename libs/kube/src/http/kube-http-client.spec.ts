import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeConfigForUrl } from '../testing';
import { KubeHttpClient } from './kube-http-client';

describe('KubeHttpClient connections', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('reuses one kept-alive connection for calls in a row', async () => {
    let connections = 0;
    server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"kind":"Status"}');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new KubeHttpClient(kubeConfigForUrl(`http://127.0.0.1:${port}`));

    for (let call = 0; call < 5; call++) expect(await client.json({ path: '/api' })).toEqual({ kind: 'Status' });
    expect(connections).toBe(1);
  });
});
