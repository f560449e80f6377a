import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { eventually, kubeConfigForUrl } from '../testing';
import { KubeHttpClient } from '../http/kube-http-client';
import { KubeResources } from '../http/kube-resources';
import { Informer } from './informer';
import { resourceListWatch } from './list-watch';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const FAST_BACKOFF = { initialMs: 20, maxMs: 200, jitter: 0.5 };

function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): JsonObject {
  return { ...CM, metadata: { name, namespace, labels: { app: name.split('-')[0]! } }, data };
}

describe('Informer against the in-memory API server', () => {
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50 });
  let url: string;
  let port: number;
  let resources: KubeResources;

  beforeAll(async () => {
    ({ url, port } = await server.start({ host: '127.0.0.1', port: 0 }));
    resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
  });
  afterAll(async () => server.stop());

  function makeInformer(namespace = 'default', resyncIntervalMs = 0) {
    const events: string[] = [];
    const informer = new Informer<KubeObject>(
      resourceListWatch(resources, { ...CM, namespace, watchTimeoutSeconds: 30, watchConnectTimeoutMs: 2_000 }),
      {
        name: 'v1/ConfigMap',
        backoff: FAST_BACKOFF,
        resyncIntervalMs,
        indexers: { app: (o) => [o.metadata?.labels?.app ?? ''] },
      },
    );
    informer.on('add', (o) => void events.push(`add ${o.metadata?.name}`));
    informer.on(
      'update',
      (o, old) =>
        void events.push(`update ${o.metadata?.name} ${old.metadata?.resourceVersion}->${o.metadata?.resourceVersion}`),
    );
    informer.on('delete', (o) => void events.push(`delete ${o.metadata?.name}`));
    return { informer, events };
  }

  /** The informer's cache equals what a fresh list returns (full objects, kind/apiVersion filled in). */
  async function expectSameAsFreshList(informer: Informer<KubeObject>, namespace: string): Promise<void> {
    const fresh = await resources.list(CM, undefined);
    const expected = fresh.items.filter((o) => o.metadata?.namespace === namespace);
    const byName = (a: KubeObject, b: KubeObject) => a.metadata!.name!.localeCompare(b.metadata!.name!);
    await eventually(
      () => JSON.stringify(informer.list().sort(byName)) === JSON.stringify([...expected].sort(byName)),
      'the cache to match a fresh list',
    );
    expect(informer.list().sort(byName)).toEqual(expected.sort(byName));
  }

  async function namespace(name: string): Promise<string> {
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  }

  it('lists, fills in kind/apiVersion, syncs, then follows changes in order', async () => {
    const ns = await namespace('sync');
    server.create(configMap('a-1', { k: '1' }, ns));
    server.create(configMap('b-1', {}, ns));
    const { informer, events } = makeInformer(ns);
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync(5_000);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.get('a-1', ns)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: '1' } });
    expect(informer.byIndex('app', 'b').map((o) => o.metadata?.name)).toEqual(['b-1']);

    const created = server.create(configMap('c-1', {}, ns));
    server.update({ ...created, data: { x: 'y' } });
    server.delete('v1', 'ConfigMap', 'a-1', ns);
    await eventually(() => events.length === 5, 'five events');
    expect(events.slice(0, 2).sort()).toEqual(['add a-1', 'add b-1']);
    expect(events[2]).toBe('add c-1');
    expect(events[3]).toMatch(/^update c-1 \d+->\d+$/);
    expect(events[4]).toBe('delete a-1');
    await expectSameAsFreshList(informer, ns);
    await informer.stop();
  });

  it('survives a 500 on the watch and on the list', async () => {
    const ns = await namespace('fivehundred');
    server.create(configMap('a-1', {}, ns));
    server.faults.failNext({
      method: 'GET',
      pathPrefix: `/api/v1/namespaces/${ns}/configmaps`,
      watch: false,
      status: 500,
    });
    const { informer, events } = makeInformer(ns);
    informer.start();
    await informer.waitForSync(5_000);
    expect(informer.stats().lastError?.message).toMatch(/injected fault/);

    server.faults.failNext({ pathPrefix: `/api/v1/namespaces/${ns}/configmaps`, watch: true, status: 500, count: 2 });
    server.closeWatches();
    server.create(configMap('b-1', {}, ns));
    await eventually(() => events.includes('add b-1'), 'the add after the failed watches');
    const stats = informer.stats();
    expect(stats.errors).toBeGreaterThanOrEqual(3);
    expect(stats.reconnects).toBeGreaterThanOrEqual(2);
    expect(stats.synced).toBe(true);
    await expectSameAsFreshList(informer, ns);
    await informer.stop();
  });

  it('relists after 410 Gone and reports the differences as events', async () => {
    const ns = await namespace('gone');
    server.create(configMap('a-1', {}, ns));
    server.create(configMap('b-1', {}, ns));
    const { informer, events } = makeInformer(ns);
    informer.start();
    await informer.waitForSync(5_000);

    // While no watch is open, change things and forget the history: the resumed watch gets 410.
    server.faults.pause();
    server.closeWatches();
    const b = server.get('v1', 'ConfigMap', 'b-1', ns)!;
    server.update({ ...b, data: { changed: 'yes' } });
    server.delete('v1', 'ConfigMap', 'a-1', ns);
    server.create(configMap('c-1', {}, ns));
    server.create(configMap('unrelated', {}, 'default'));
    server.compact();
    server.faults.resume();

    await eventually(() => informer.stats().relists === 1, 'a relist');
    await eventually(() => events.length === 5, 'the diff events');
    const diff = events.slice(2).sort();
    expect(diff.slice(0, 2)).toEqual(['add c-1', 'delete a-1']);
    expect(diff[2]).toMatch(/^update b-1 /);
    expect(informer.stats().lastError).toMatchObject({ code: 410, reason: 'Expired' });
    await expectSameAsFreshList(informer, ns);
    await informer.stop();
  });

  it('survives a server restart on the same port and catches up', async () => {
    const ns = await namespace('restart');
    server.create(configMap('a-1', {}, ns));
    const { informer, events } = makeInformer(ns);
    informer.start();
    await informer.waitForSync(5_000);

    await server.stop();
    expect(server.get('v1', 'ConfigMap', 'a-1', ns)).toBeDefined(); // state survives stop()
    server.create(configMap('b-1', {}, ns)); // changed while down
    await eventually(() => informer.stats().errors >= 1, 'a connection error while down');
    await server.start({ host: '127.0.0.1', port });

    server.create(configMap('c-1', {}, ns));
    await eventually(() => events.includes('add c-1') && events.includes('add b-1'), 'events after the restart');
    expect(informer.stats().reconnects).toBeGreaterThanOrEqual(1);
    await expectSameAsFreshList(informer, ns);
    await informer.stop();
  });

  it('relists periodically and stays consistent', async () => {
    const ns = await namespace('resync');
    server.create(configMap('a-1', {}, ns));
    const { informer, events } = makeInformer(ns, 100);
    informer.start();
    await informer.waitForSync(5_000);
    await eventually(() => informer.stats().relists >= 2, 'two periodic relists');
    expect(events).toEqual(['add a-1']); // nothing changed: a relist emits nothing
    await informer.stop();
  });

  it('waitForSync rejects when stopped first, and stop ends a paused connection', async () => {
    server.faults.pause();
    const { informer } = makeInformer('default');
    informer.start();
    const waiting = expect(informer.waitForSync()).rejects.toThrow(/stopped before it synced/);
    await informer.stop();
    await waiting;
    server.faults.resume();
  });
});
