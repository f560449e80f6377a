import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeHttpClient, type KubeHttpRequest } from '@edict/kube';
import { kubeConfigForUrl } from '@edict/kube/testing';
import { KubeApiCaller } from './kube-api-caller';

const limits = { timeoutMs: 500, maxResponseBytes: 16 * 1024 };

describe('KubeApiCaller', () => {
  let server: Server | undefined;
  const received: Array<{ method?: string; url?: string; body: string }> = [];

  afterEach(async () => {
    received.length = 0;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function apiServer(
    answer: (request: IncomingMessage, response: ServerResponse) => void,
  ): Promise<KubeApiCaller> {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ method: request.method, url: request.url, body });
        answer(request, response);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = new KubeHttpClient(kubeConfigForUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    return new KubeApiCaller((request) => client.json(request), limits);
  }

  it('GETs the path and POSTs data as a JSON object', async () => {
    const caller = await apiServer((request, response) => response.end(JSON.stringify({ seen: request.method })));
    expect(await caller.call({ urlPath: '/api/v1/namespaces/shop/pods?limit=1' })).toEqual({ seen: 'GET' });
    expect(
      await caller.call({
        urlPath: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        method: 'POST',
        data: [{ key: 'spec', value: { user: 'alice' } }],
      }),
    ).toEqual({ seen: 'POST' });
    expect(received).toEqual([
      { method: 'GET', url: '/api/v1/namespaces/shop/pods?limit=1', body: '' },
      { method: 'POST', url: '/apis/authorization.k8s.io/v1/subjectaccessreviews', body: '{"spec":{"user":"alice"}}' },
    ]);
  });

  it('refuses an answer over the cap, cut off while it streams', async () => {
    let written = 0;
    const caller = await apiServer((_request, response) => {
      const timer = setInterval(() => {
        written += 4096;
        response.write(' '.repeat(4096));
      }, 1);
      response.on('close', () => clearInterval(timer));
    });
    await expect(caller.call({ urlPath: '/api/v1/pods' })).rejects.toThrow(
      'failed to GET /api/v1/pods: the answer is longer than the 16384 bytes allowed (EDICT_MAX_API_CALL_RESPONSE_BYTES)',
    );
    expect(written).toBeLessThan(1024 * 1024);
  });

  it('ends a call whose answer does not complete within the timeout', async () => {
    const caller = await apiServer((_request, response) => response.write('{"items":['));
    await expect(caller.call({ urlPath: '/api/v1/pods' })).rejects.toThrow(
      'failed to GET /api/v1/pods: no complete answer within 500 ms (EDICT_API_CALL_TIMEOUT_MS)',
    );
  });

  it("names a permission problem and the API server's message", async () => {
    const caller = await apiServer((_request, response) => {
      response.statusCode = 403;
      response.end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'secrets is forbidden' }));
    });
    await expect(caller.call({ urlPath: '/api/v1/namespaces/shop/secrets' })).rejects.toThrow(
      'failed to GET /api/v1/namespaces/shop/secrets: permission denied: secrets is forbidden',
    );
  });

  it('sends nothing for a path that is not a plain API server path', async () => {
    const sent: KubeHttpRequest[] = [];
    const caller = new KubeApiCaller(async (request) => {
      sent.push(request);
      return {};
    }, limits);
    await expect(caller.call({ urlPath: '@evil.example/x' })).rejects.toThrow(/must be an absolute API server path/);
    expect(sent).toEqual([]);
  });
});
