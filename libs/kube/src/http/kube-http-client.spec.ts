import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeConfigForUrl } from '../testing';
import { KubeHttpClient, KubeResponseTooLargeError, KubeTimeoutError } from './kube-http-client';

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

  it('call skips a successful answer body on the kept-alive connection and throws on an error status', async () => {
    let connections = 0;
    server = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/missing') {
        response.statusCode = 404;
        response.end('{"kind":"Status","reason":"NotFound","message":"no such thing","code":404}');
      } else response.end(JSON.stringify({ kind: 'ConfigMap', data: { big: 'x'.repeat(100_000) } }));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new KubeHttpClient(kubeConfigForUrl(`http://127.0.0.1:${port}`));

    for (let call = 0; call < 3; call++)
      expect(await client.call({ method: 'POST', path: '/api/v1/configmaps', body: {} })).toBeUndefined();
    await expect(client.call({ path: '/missing' })).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    expect(await client.json({ path: '/api' })).toMatchObject({ kind: 'ConfigMap' });
    expect(connections).toBe(1);
  });
});

describe('KubeHttpClient bounded answers', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<KubeHttpClient> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new KubeHttpClient(kubeConfigForUrl(`http://127.0.0.1:${port}`));
  }

  it('cuts off an endless chunked answer once it passes maxResponseBytes', async () => {
    let written = 0;
    const client = await serve((_request, response) => {
      response.setHeader('content-type', 'application/json');
      const timer = setInterval(() => {
        written += 1024;
        response.write(' '.repeat(1024));
      }, 1);
      response.on('close', () => clearInterval(timer));
    });
    const error = await client.json({ path: '/api/v1/pods', maxResponseBytes: 8 * 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeResponseTooLargeError);
    expect((error as Error).message).toBe('the answer to /api/v1/pods is longer than 8192 bytes');
    expect(written).toBeLessThan(1024 * 1024);
  });

  it('refuses at once an answer whose declared length is over the cap', async () => {
    const client = await serve((_request, response) => {
      response.setHeader('content-length', String(1_000_000));
      response.write('{');
    });
    await expect(client.json({ path: '/api', maxResponseBytes: 100 })).rejects.toThrow(KubeResponseTooLargeError);
  });

  it('accepts an answer within the cap', async () => {
    const client = await serve((_request, response) => response.end('{"kind":"Status"}'));
    expect(await client.json({ path: '/api', maxResponseBytes: 17 })).toEqual({ kind: 'Status' });
  });

  it('ends a call whose body stalls after the headers at totalTimeoutMs', async () => {
    const client = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"items": [');
    });
    const error = await client.json({ path: '/api/v1/pods', totalTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeTimeoutError);
    expect((error as Error).message).toBe('GET /api/v1/pods: not done in 200 ms');
  });
});
