import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('fault injection', () => {
  let running: Running;
  afterEach(async () => running.server.stop());

  it('fails the next matching requests with a kube Status, then serves normally', async () => {
    running = await startServer();
    running.server.faults.failNext({ method: 'GET', pathPrefix: CMS, status: 500, count: 2 });
    expect((await running.request('GET', '/api/v1/namespaces')).status).toBe(200);
    const first = await running.request('GET', CMS);
    expect(first.status).toBe(500);
    expect(first.body).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError' });
    expect((await running.request('GET', CMS)).status).toBe(500);
    expect((await running.request('GET', CMS)).status).toBe(200);
    expect(running.server.faults.injected).toBe(2);
  });

  it('matches watch requests apart from lists', async () => {
    running = await startServer();
    running.server.faults.failNext({ watch: true, status: 503 });
    expect((await running.request('GET', CMS)).status).toBe(200);
    const watch = await fetch(`${running.url}${CMS}?watch=true`);
    expect(watch.status).toBe(503);
  });

  it('holds requests while paused and answers them on resume', async () => {
    running = await startServer();
    running.server.faults.pause();
    let answered = false;
    const pending = running.request('GET', CMS).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    running.server.faults.resume();
    expect((await pending).status).toBe(200);
  });
});
