import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';
import { RequestLog } from './request-log';

const CMS = '/api/v1/namespaces/default/configmaps';

function send(running: Running, method: string, path: string, user?: string, body?: unknown) {
  return fetch(`${running.url}${path}`, {
    method,
    headers: {
      ...(user ? { 'Impersonate-User': user } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (response) => (await response.text(), response.status));
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('request log', () => {
  let running: Running;
  afterEach(async () => running.server.stop());

  it('records nothing until started', async () => {
    running = await startServer();
    await send(running, 'POST', CMS, 'alice', configMap('a'));
    expect(running.server.requests.requests()).toEqual([]);
  });

  it("records each request's user, method, path and status; writes and writers by path", async () => {
    running = await startServer();
    running.server.requests.start();
    expect(await send(running, 'POST', CMS, 'alice', configMap('a'))).toBe(201);
    expect(await send(running, 'POST', CMS, 'bob', configMap('a'))).toBe(409);
    expect(await send(running, 'GET', `${CMS}/a`)).toBe(200);
    expect(await send(running, 'POST', `${CMS}?dryRun=All`, 'carol', configMap('b'))).toBe(201);
    expect(await send(running, 'DELETE', '/api/v1/namespaces/default/secrets/none', 'dave')).toBe(404);

    const log = running.server.requests;
    expect(log.requests({ pathPrefix: CMS }).map(({ method, user, status }) => [method, user, status])).toEqual([
      ['POST', 'alice', 201],
      ['POST', 'bob', 409],
      ['GET', 'kubernetes-admin', 200],
      ['POST', 'carol', 201],
    ]);
    expect(log.writers({ pathPrefix: CMS })).toEqual(['alice', 'bob']);
    expect(log.writers({ pathPrefix: CMS, succeeded: true })).toEqual(['alice']);
    expect(log.writes({ user: 'dave' })).toMatchObject([
      { method: 'DELETE', path: '/api/v1/namespaces/default/secrets/none', status: 404, watch: false },
    ]);
    // Arrival and answer times, in the order the requests were sent.
    const entries = log.requests();
    for (const [index, entry] of entries.entries()) {
      expect(entry.answeredAt).toBeGreaterThanOrEqual(entry.receivedAt);
      if (index > 0) expect(entry.receivedAt).toBeGreaterThanOrEqual(entries[index - 1]!.receivedAt);
    }
  });

  it('records watches when they end, and stops recording on stop()', async () => {
    running = await startServer();
    running.server.requests.start();
    const watch = await fetch(`${running.url}${CMS}?watch=true&timeoutSeconds=1`, {
      headers: { 'Impersonate-User': 'watcher' },
    });
    await watch.text();
    expect(running.server.requests.requests({ user: 'watcher' })).toMatchObject([{ watch: true, status: 200 }]);
    running.server.requests.stop();
    await send(running, 'POST', CMS, 'late', configMap('late'));
    expect(running.server.requests.requests({ user: 'late' })).toEqual([]);
  });

  it('keeps only the newest entries beyond its limit', async () => {
    running = await startServer();
    const log = new RequestLog(2);
    log.start();
    const fake = (path: string) => {
      const listeners: Record<string, () => void> = {};
      const response = { statusCode: 200, once: (event: string, fn: () => void) => (listeners[event] = fn) };
      log.observe({ method: 'GET', url: path, headers: {} } as never, response as never);
      listeners.finish!();
      listeners.close!(); // recorded once
    };
    fake('/a');
    fake('/b');
    fake('/c');
    expect(log.requests().map((entry) => entry.path)).toEqual(['/b', '/c']);
  });
});
