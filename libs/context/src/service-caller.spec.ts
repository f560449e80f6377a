import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressClient, type ResolveAll } from '@edict/egress';
import { ServiceCaller } from './service-caller';

const limits = { timeoutMs: 500, maxResponseBytes: 16 * 1024 };

describe('ServiceCaller', () => {
  let server: Server | undefined;
  let egress: EgressClient | undefined;
  const received: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

  afterEach(async () => {
    egress?.close();
    received.length = 0;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ method: request.method, url: request.url, headers: request.headers, body });
        answer(request, response);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function caller(blockedCidrs?: string[], resolveAll?: ResolveAll): ServiceCaller {
    egress = new EgressClient(blockedCidrs ? { blockedCidrs } : {}, resolveAll);
    return new ServiceCaller(egress, limits);
  }

  it('refuses loopback by default, before any connection', async () => {
    const base = await serve((_request, response) => response.end('{}'));
    await expect(caller().call({ service: { url: `${base}/check` } })).rejects.toThrow(
      /service call GET http:\/\/127\.0\.0\.1:\d+\/check failed: refused: address 127\.0\.0\.1 is in the blocked range 127\.0\.0\.0\/8 \(EDICT_EGRESS_BLOCKED_CIDRS\)/,
    );
    expect(received).toEqual([]);
  });

  it('refuses the cloud metadata address by default', async () => {
    await expect(
      caller().call({ service: { url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' } }),
    ).rejects.toThrow(/refused: address 169\.254\.169\.254 is in the blocked range 169\.254\.0\.0\/16/);
  });

  it('refuses a host name that resolves into a blocked range without telling the address', async () => {
    const resolveAll: ResolveAll = (_host, _options, callback) =>
      callback(null, [{ address: '169.254.169.254', family: 4 }]);
    const error = (await caller(undefined, resolveAll)
      .call({ service: { url: 'http://metadata.attacker.example/' } })
      .then(
        () => new Error('no error'),
        (e: unknown) => e,
      )) as Error;
    expect(error.message).toContain(
      'refused: host metadata.attacker.example resolves into the blocked range 169.254.0.0/16',
    );
    expect(error.message).not.toContain('169.254.169.254');
  });

  it('reaches loopback once the block list is configured empty: GET, and POST with data as a JSON body and headers', async () => {
    const base = await serve((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, ok: true }));
    });
    const service = caller([]);
    expect(await service.call({ service: { url: `${base}/get` } })).toEqual({ method: 'GET', ok: true });
    expect(
      await service.call({
        method: 'POST',
        data: [
          { key: 'image', value: 'nginx:1.27' },
          { key: 'tags', value: ['a', 'b'] },
        ],
        service: { url: `${base}/post`, headers: [{ key: 'X-Token', value: 'secret' }] },
      }),
    ).toEqual({ method: 'POST', ok: true });
    expect(received[1]).toMatchObject({
      method: 'POST',
      url: '/post',
      body: '{"image":"nginx:1.27","tags":["a","b"]}',
      headers: { 'content-type': 'application/json', 'x-token': 'secret' },
    });
  });

  it('refuses an answer over the cap, cutting off an endless one', async () => {
    let written = 0;
    const base = await serve((_request, response) => {
      const timer = setInterval(() => {
        written += 4096;
        response.write(' '.repeat(4096));
      }, 1);
      response.on('close', () => clearInterval(timer));
    });
    await expect(caller([]).call({ service: { url: `${base}/huge` } })).rejects.toThrow(
      /the answer is longer than the 16384 bytes allowed \(EDICT_MAX_API_CALL_RESPONSE_BYTES\)/,
    );
    expect(written).toBeLessThan(1024 * 1024);
  });

  it('ends a call that does not complete within the timeout', async () => {
    const base = await serve((_request, response) => response.write('{"partial":'));
    await expect(caller([]).call({ service: { url: `${base}/slow` } })).rejects.toThrow(
      /no complete answer within 500 ms \(EDICT_API_CALL_TIMEOUT_MS\)/,
    );
  });

  it('follows no redirect: a 3xx is an error and its target is never called', async () => {
    const base = await serve((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(302, { location: '/elsewhere' });
        response.end();
      } else response.end('{"reached":true}');
    });
    await expect(caller([]).call({ service: { url: `${base}/moved` } })).rejects.toThrow(/answered HTTP 302/);
    expect(received.map((r) => r.url)).toEqual(['/moved']);
  });

  it('reports error statuses, answers that are not JSON, and bad methods or headers', async () => {
    const base = await serve((request, response) => {
      if (request.url === '/down') {
        response.statusCode = 503;
        response.end('maintenance');
      } else response.end('not json');
    });
    const service = caller([]);
    await expect(service.call({ service: { url: `${base}/down` } })).rejects.toThrow(/answered HTTP 503: maintenance/);
    await expect(service.call({ service: { url: `${base}/text` } })).rejects.toThrow(
      /answered something that is not JSON/,
    );
    await expect(service.call({ method: 'DELETE' as never, service: { url: `${base}/x` } })).rejects.toThrow(
      'invalid apiCall method "DELETE": GET or POST only',
    );
    await expect(
      service.call({ service: { url: `${base}/x`, headers: [{ key: 'Host', value: 'internal' }] } }),
    ).rejects.toThrow('apiCall service.headers: Host is set by the connection, not by the policy');
    await expect(
      service.call({ service: { url: `${base}/x`, headers: [{ key: 'X-A', value: 'a\r\nX-B: b' }] } }),
    ).rejects.toThrow('the value of X-A holds a line break');
  });
});
