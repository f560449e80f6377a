import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCel, kyvernoActivation } from '@edict/cel';
import { EgressClient } from '@edict/egress';
import { EgressCelHttpPort } from './cel-http-port';

const limits = { timeoutMs: 1000, maxResponseBytes: 16 * 1024 };
const call = { maxResponseBytes: 16 * 1024 };

describe('EgressCelHttpPort', () => {
  let server: Server | undefined;
  let egress: EgressClient | undefined;
  const received: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = [];

  afterEach(async () => {
    egress?.close();
    received.length = 0;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function serve(status: number, body: string): Promise<string> {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        received.push({ method: request.method, url: request.url, headers: request.headers, body: text });
        response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Loopback is blocked by default: the test server is reached only with an empty block list. */
  function port(blockedCidrs: string[] = []): EgressCelHttpPort {
    egress = new EgressClient({ blockedCidrs });
    return new EgressCelHttpPort(egress, limits);
  }

  it('refuses blocked addresses (loopback by default) before connecting', async () => {
    const base = await serve(200, '{}');
    egress = new EgressClient({});
    await expect(
      new EgressCelHttpPort(egress, limits).send({ method: 'GET', url: `${base}/x`, headers: {} }, call),
    ).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:\d+\/x: refused: .*127\.0\.0\.0\/8/);
    expect(received).toEqual([]);
  });

  it('sends the method, headers and body, and answers any status with the raw body', async () => {
    const base = await serve(403, '{"reason":"nope"}');
    const answer = await port().send(
      { method: 'POST', url: `${base}/check`, headers: { 'X-Team': 'a' }, body: '{"a":1}\n' },
      call,
    );
    expect(answer).toEqual({ statusCode: 403, body: '{"reason":"nope"}' });
    expect(received[0]).toMatchObject({ method: 'POST', url: '/check', body: '{"a":1}\n' });
    expect(received[0]?.headers['x-team']).toBe('a');
  });

  it('refuses blocked host names before connecting', async () => {
    await expect(
      port().send({ method: 'GET', url: 'http://metadata.google.internal/computeMetadata/v1/', headers: {} }, call),
    ).rejects.toThrow(/the URL is not permitted: hostname "metadata.google.internal" is on the blocklist/);
  });

  it('refuses headers that belong to the connection and URLs that are not http(s)', async () => {
    await expect(
      port().send({ method: 'GET', url: 'http://example.test/', headers: { Host: 'evil' } }, call),
    ).rejects.toThrow('http.GET headers: Host is set by the connection, not by the policy');
    await expect(port().send({ method: 'GET', url: 'file:///etc/passwd', headers: {} }, call)).rejects.toThrow(
      /only http and https URLs/,
    );
  });

  it("caps the body at the smaller of its own and the call's limit", async () => {
    const base = await serve(200, JSON.stringify({ data: 'x'.repeat(4000) }));
    await expect(
      port().send({ method: 'GET', url: `${base}/big`, headers: {} }, { maxResponseBytes: 1000 }),
    ).rejects.toThrow(/longer than the 1000 bytes allowed/);
  });

  it("serves Kyverno's http library end to end", async () => {
    const base = await serve(200, '{"allowed":true}');
    const program = compileCel(
      `http.Get("${base}/decide").allowed`,
      { params: false, authorizer: false, kyverno: true },
      'any',
    );
    await expect(Promise.resolve(program.evaluate(kyvernoActivation({ http: port() })))).resolves.toBe(true);
  });
});
