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

describe('KubeHttpClient requests', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function serveEcho(): Promise<{ url: string; seen: { url: string; headers: Record<string, unknown> }[] }> {
    const seen: { url: string; headers: Record<string, unknown> }[] = [];
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? '', headers: request.headers });
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, seen };
  }

  it('sends the path and query string a parsed URL would, with the server path before it', async () => {
    const { url, seen } = await serveEcho();
    const cases: { path: string; query?: Record<string, string | number | boolean | undefined> }[] = [
      {
        path: '/api/v1/pods',
        query: { labelSelector: 'app in (a, b),team!=x', limit: 5, watch: true, skip: undefined },
      },
      { path: '/api/v1/namespaces/a b/pods/ü' },
      { path: '/api/v1/namespaces/x/../y/pods', query: { fieldSelector: 'metadata.name=a&b' } },
      { path: '/apis/x/v1/things?existing=1', query: { more: '2' } },
    ];
    for (const prefix of ['', '/prefix']) {
      const client = new KubeHttpClient(kubeConfigForUrl(url + prefix));
      for (const { path, query } of cases) {
        await client.json({ path, ...(query ? { query } : {}) });
        const expected = new URL(url + prefix + path);
        for (const [key, value] of Object.entries(query ?? {}))
          if (value !== undefined) expected.searchParams.set(key, String(value));
        expect(seen.at(-1)?.url).toBe(expected.pathname + expected.search);
      }
    }
  });

  it('sends the Accept header asked for, application/json by default, and the kubeconfig credentials', async () => {
    const { url, seen } = await serveEcho();
    const config = kubeConfigForUrl(url);
    config.users[0] = { ...config.users[0]!, token: 'first' };
    const client = new KubeHttpClient(config);
    await client.json({ path: '/api' });
    await client.json({ path: '/api', accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
    expect(seen.map((request) => [request.headers.accept, request.headers.authorization])).toEqual([
      ['application/json', 'Bearer first'],
      ['application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 'Bearer first'],
    ]);
  });

  it('reads the kubeconfig settings once a second, and at once when the current user changes', async () => {
    const { url, seen } = await serveEcho();
    const config = kubeConfigForUrl(url);
    let now = 0;
    let reads = 0;
    const apply = config.applyToHTTPSOptions.bind(config);
    config.applyToHTTPSOptions = async (options) => {
      reads++;
      await apply(options);
    };
    const user = config.users[0]!;
    const client = new KubeHttpClient(config, { now: () => now });
    for (let call = 0; call < 5; call++) await client.json({ path: '/api' });
    expect(reads).toBe(1);

    (user as { token?: string }).token = 'rotated'; // a token file reread: the same user object, new credentials
    now = 999;
    await client.json({ path: '/api' });
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
    now = 1000;
    await client.json({ path: '/api' });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer rotated');
    expect(reads).toBe(2);

    config.users[0] = { ...user, token: 'other user' };
    await client.json({ path: '/api' });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer other user');
    expect(reads).toBe(3);
  });
});
