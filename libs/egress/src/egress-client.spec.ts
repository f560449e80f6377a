import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestCa } from '@edict/apiserver/testing';
import { EgressConfigError } from './address-policy';
import { EgressClient, type ResolveAll } from './egress-client';
import {
  EgressRedirectError,
  EgressRefusedError,
  EgressRequestError,
  EgressResponseTooLargeError,
  EgressTimeoutError,
} from './egress-errors';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
}

const servers: Server[] = [];
const clients: EgressClient[] = [];

afterEach(async () => {
  clients.splice(0).forEach((client) => client.close());
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(server: Server, scheme: 'http' | 'https', host = '127.0.0.1'): Promise<TestServer> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${scheme}://${host}:${port}`, port, requests: [] };
}

/** A plain HTTP server on 127.0.0.1 that records each request, then hands it to the handler. */
async function startServer(handler: Handler): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  return { ...(await listen(server, 'http')), requests };
}

function client(...args: ConstructorParameters<typeof EgressClient>): EgressClient {
  const built = new EgressClient(...args);
  clients.push(built);
  return built;
}

/** A client that may reach the test's loopback servers. */
const open = () => client({ blockedCidrs: [] });

describe('EgressClient', () => {
  it('GETs and POSTs with headers and a body, returning status, headers and the body', async () => {
    const server = await startServer((req, res, body) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'x-seen': req.method });
      res.end(JSON.stringify({ method: req.method, body, token: req.headers['x-token'] }));
    });
    const egress = open();

    const got = await egress.request(`${server.url}/items?x=1`);
    expect(got.status).toBe(200);
    expect(got.headers['x-seen']).toBe('GET');
    expect(JSON.parse(got.body.toString())).toEqual({ method: 'GET', body: '' });
    expect(got.url).toBe(`${server.url}/items?x=1`);

    const posted = await egress.request(`${server.url}/items`, {
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Token': 'abc' },
      body: '{"a":1}',
    });
    expect(posted.status).toBe(201);
    expect(JSON.parse(posted.body.toString())).toEqual({ method: 'POST', body: '{"a":1}', token: 'abc' });
    expect(server.requests[1].headers['content-length']).toBe('7');
  });

  describe('the default block list', () => {
    it('refuses the loopback server the open client reaches, before any connection', async () => {
      const server = await startServer((_req, res) => res.end('secret'));
      expect((await open().request(server.url)).body.toString()).toBe('secret');

      const refused = client().request(`${server.url}/x`);
      await expect(refused).rejects.toThrow(EgressRefusedError);
      await expect(refused).rejects.toThrow(
        `refused: address 127.0.0.1 is in the blocked range 127.0.0.0/8 (egress block list) calling ${server.url}/x`,
      );
      expect(server.requests).toHaveLength(1);
    });

    it.each([
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', '169.254.0.0/16'],
      ['http://2852039166/latest/', '169.254.169.254', '169.254.0.0/16'],
      ['http://0251.0376.0251.0376/', '169.254.169.254', '169.254.0.0/16'],
      ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', '169.254.0.0/16'],
      ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 'fd00:ec2::254/128'],
      ['https://100.100.100.200/', '100.100.100.200', '100.100.100.200/32'],
      ['http://[::1]:8080/', '::1', '::1/128'],
      ['http://[::ffff:127.0.0.1]:8080/', '::ffff:7f00:1', '127.0.0.0/8'],
      ['http://0.0.0.0:8080/', '0.0.0.0', '0.0.0.0/8'],
      ['http://[::]:8080/', '::', '::/128'],
      ['http://[fe80::1]/', 'fe80::1', 'fe80::/10'],
    ])('refuses %s', async (url, address, range) => {
      const refused = client().request(url);
      await expect(refused).rejects.toMatchObject({ name: 'EgressRefusedError', address, range });
    });

    it('refuses a host name that resolves to a blocked address (localhost)', async () => {
      const server = await startServer((_req, res) => res.end('secret'));
      const refused = client().request(`http://localhost:${server.port}/`);
      await expect(refused).rejects.toThrow(
        `refused: host localhost resolves into the blocked range 127.0.0.0/8 (egress block list) calling http://localhost:${server.port}/`,
      );
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('resolution', () => {
    const scripted =
      (answers: Record<string, string[]>): ResolveAll =>
      (hostname, _options, callback) => {
        const addresses = answers[hostname] ?? [];
        setImmediate(() =>
          callback(
            null,
            addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
          ),
        );
      };

    it('connects to the address it checked, without resolving again', async () => {
      const server = await startServer((req, res) => res.end(`host ${req.headers.host}`));
      const egress = client({ blockedCidrs: ['169.254.0.0/16'] }, scripted({ 'registry.test': ['127.0.0.1'] }));
      const answer = await egress.request(`http://registry.test:${server.port}/v2/`);
      expect(answer.body.toString()).toBe(`host registry.test:${server.port}`);
    });

    it('refuses when any of the addresses is blocked, even if another is allowed', async () => {
      const server = await startServer((_req, res) => res.end('ok'));
      const egress = client(
        { blockedCidrs: ['169.254.0.0/16'] },
        scripted({ 'mixed.test': ['127.0.0.1', '169.254.169.254'] }),
      );
      const refused = (await egress.request(`http://mixed.test:${server.port}/`).catch((e: unknown) => e)) as Error;
      expect(refused).toBeInstanceOf(EgressRefusedError);
      expect(refused.message).toContain('refused: host mixed.test resolves into the blocked range 169.254.0.0/16');
      // The resolved address stays on the error for logs, out of the message that reaches a denial.
      expect(refused.message).not.toContain('169.254.169.254');
      expect(refused).toMatchObject({ address: '169.254.169.254', hostname: 'mixed.test' });
      expect(server.requests).toHaveLength(0);
    });

    it('reports a name that does not resolve as a request error naming the URL', async () => {
      const egress = client({ blockedCidrs: [] }, scripted({}));
      await expect(egress.request('http://nowhere.test/')).rejects.toThrow(
        /calling http:\/\/nowhere\.test\/ failed: getaddrinfo ENOTFOUND nowhere\.test/,
      );
    });
  });

  describe('the size cap', () => {
    it('aborts while streaming as soon as the body passes the cap (no content-length, never ending)', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(Buffer.alloc(600 * 1024));
        res.write(Buffer.alloc(600 * 1024));
        // Never ends: only counting while streaming can stop this call.
      });
      const call = open().request(`${server.url}/big`, { maxResponseBytes: 1024 * 1024, timeoutMs: 60_000 });
      await expect(call).rejects.toThrow(EgressResponseTooLargeError);
      await expect(call).rejects.toThrow(`response from ${server.url}/big exceeds the 1 MiB limit`);
    });

    it('refuses a declared content-length above the cap before reading the body', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
        res.flushHeaders();
        // Sends no body: only the up-front check can end this call.
      });
      await expect(open().request(server.url, { timeoutMs: 60_000 })).rejects.toThrow(
        `response from ${server.url}/ exceeds the 2 MiB limit`,
      );
    });

    it('accepts a body of exactly the cap', async () => {
      const server = await startServer((_req, res) => res.end(Buffer.alloc(1000, 1)));
      const answer = await open().request(server.url, { maxResponseBytes: 1000 });
      expect(answer.body).toHaveLength(1000);
    });
  });

  describe('the deadline', () => {
    it('times out on a server that never answers', async () => {
      const server = await startServer(() => undefined);
      const call = open().request(`${server.url}/slow`, { timeoutMs: 300 });
      await expect(call).rejects.toThrow(EgressTimeoutError);
      await expect(call).rejects.toThrow(`timed out after 300ms calling ${server.url}/slow`);
    });

    it('covers the body too: headers then silence', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200);
        res.write('partial');
      });
      await expect(open().request(server.url, { timeoutMs: 300 })).rejects.toThrow(EgressTimeoutError);
    });

    it('stops when the caller aborts', async () => {
      const server = await startServer(() => undefined);
      const controller = new AbortController();
      const call = open().request(server.url, { signal: controller.signal, timeoutMs: 60_000 });
      setTimeout(() => controller.abort(), 50);
      await expect(call).rejects.toThrow(`aborted calling ${server.url}/`);
    });
  });

  describe('redirects', () => {
    it('are returned as they are by default', async () => {
      const server = await startServer((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
      const answer = await open().request(server.url);
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('/elsewhere');
      expect(server.requests).toHaveLength(1);
    });

    it('are followed when asked, dropping credentials across origins', async () => {
      const target = await startServer((req, res) => res.end(`auth=${req.headers.authorization ?? 'none'}`));
      const origin = await startServer((req, res) => {
        if (req.url === '/start') res.writeHead(307, { location: '/next' }).end();
        else res.writeHead(302, { location: `${target.url}/final` }).end();
      });
      const answer = await open().request(`${origin.url}/start`, {
        headers: { Authorization: 'Bearer secret' },
        maxRedirects: 3,
      });
      expect(answer.body.toString()).toBe('auth=none');
      expect(answer.url).toBe(`${target.url}/final`);
      expect(origin.requests.map((request) => request.headers.authorization)).toEqual([
        'Bearer secret',
        'Bearer secret',
      ]);
    });

    it('check every hop against the block list', async () => {
      const server = await startServer((_req, res) =>
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      );
      const egress = client({ blockedCidrs: ['169.254.0.0/16'] });
      await expect(egress.request(server.url, { maxRedirects: 5 })).rejects.toThrow(
        'refused: address 169.254.169.254 is in the blocked range 169.254.0.0/16 (egress block list) calling http://169.254.169.254/latest/meta-data/',
      );
    });

    it('stop after the allowed number', async () => {
      const server = await startServer((req, res) => res.writeHead(302, { location: `${req.url}x` }).end());
      const call = open().request(`${server.url}/`, { maxRedirects: 2 });
      await expect(call).rejects.toThrow(EgressRedirectError);
      await expect(call).rejects.toThrow(`stopped after 2 redirect(s) calling ${server.url}/`);
      expect(server.requests).toHaveLength(3);
    });
  });

  describe('TLS', () => {
    it('trusts a custom CA bundle, and only with it', async () => {
      const ca = await createTestCa('egress-test-ca');
      const tls = await ca.issue({ ips: ['127.0.0.1'] });
      const server = createHttpsServer(tls, (_req, res) => res.end('over tls'));
      const { url } = await listen(server, 'https');
      const egress = open();

      await expect(egress.request(url)).rejects.toThrow(EgressRequestError);
      await expect(egress.request(url)).rejects.toThrow(/calling https:\/\/127\.0\.0\.1:\d+\/ failed: .*certificate/);
      const answer = await egress.request(url, { ca: ca.certificatePem });
      expect(answer.body.toString()).toBe('over tls');
      const unverified = await egress.request(url, { insecureSkipTlsVerify: true });
      expect(unverified.body.toString()).toBe('over tls');
    });
  });

  describe('bad input', () => {
    it.each([
      ['file:///etc/passwd', 'unsupported protocol file: in file:///etc/passwd (http or https only)'],
      ['not a url', 'invalid URL "not a url"'],
    ])('refuses %s', async (url, message) => {
      await expect(open().request(url)).rejects.toThrow(message);
    });

    it('refuses a bad method and bad limits', async () => {
      await expect(open().request('http://127.0.0.1/', { method: 'GET /x' })).rejects.toThrow(
        'invalid HTTP method "GET /x"',
      );
      await expect(open().request('http://127.0.0.1/', { timeoutMs: 0 })).rejects.toThrow(
        'timeoutMs must be a positive integer, got 0',
      );
      await expect(open().request('http://127.0.0.1/', { maxRedirects: 99 })).rejects.toThrow(
        'maxRedirects must be an integer 0-10',
      );
    });

    it('keeps user info out of messages', async () => {
      await expect(client().request('http://user:pw@169.254.169.254/')).rejects.toThrow(
        /calling http:\/\/169\.254\.169\.254\/$/,
      );
    });

    it('validates its options, naming the field or entry', () => {
      expect(() => new EgressClient({ timeoutMs: -5 })).toThrow(EgressConfigError);
      expect(() => new EgressClient({ timeoutMs: -5 })).toThrow(/Invalid egress options: timeoutMs: /);
      expect(() => new EgressClient({ blockedCidrs: ['10.0.0.0/8', '300.1.1.1/8'] })).toThrow(
        'invalid egress block list: entry 1 "300.1.1.1/8": not an IPv4 or IPv6 address',
      );
      expect(() => new EgressClient({ blockList: [] } as never)).toThrow(/blockList/);
    });
  });
});
