import { describe, expect, it } from 'vitest';
import type { KubeStream } from '../http/kube-http-client';
import type { RawWatchEvent } from '../http/kube-resources';
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import { eventually } from '../testing';
import { Informer } from './informer';
import type { ListWatchSource } from './list-watch';

const cm = (name: string, rv: string, namespace = 'ns'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, resourceVersion: rv },
});

/** A scripted source: lists answer from `objects`, watches hand their emitter to the test. */
class FakeSource implements ListWatchSource<ObjectHeader> {
  objects: KubeObject[] = [];
  rv = '1';
  listFailures: Error[] = [];
  watchFailures: Error[] = [];
  lists = 0;
  watchFrom: string[] = [];
  emit: ((event: RawWatchEvent<ObjectHeader>) => void) | undefined;
  end: ((error?: Error) => void) | undefined;

  async list() {
    this.lists += 1;
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    return { items: [...this.objects], resourceVersion: this.rv };
  }

  async watch(resourceVersion: string, onEvent: (event: RawWatchEvent<ObjectHeader>) => void): Promise<KubeStream> {
    this.watchFrom.push(resourceVersion);
    const failure = this.watchFailures.shift();
    if (failure) throw failure;
    this.emit = onEvent;
    let settle!: (error?: Error) => void;
    const closed = new Promise<void>((resolve, reject) => (settle = (e) => (e ? reject(e) : resolve())));
    this.end = settle;
    return { closed, abort: () => settle() };
  }
}

function start(source: FakeSource) {
  const events: string[] = [];
  const informer = new Informer(source, {
    backoff: { initialMs: 1, maxMs: 5 },
    resyncIntervalMs: 0,
    minHealthyWatchMs: 0,
  });
  informer.on('add', (o) => void events.push(`add ${o.metadata!.name}`));
  informer.on(
    'update',
    (o, old) =>
      void events.push(`update ${o.metadata!.name} ${old.metadata!.resourceVersion}>${o.metadata!.resourceVersion}`),
  );
  informer.on('delete', (o) => void events.push(`delete ${o.metadata!.name}`));
  informer.start();
  return { informer, events };
}

describe('Informer (scripted source)', () => {
  it('delivers events one at a time in order, awaiting async handlers', async () => {
    const source = new FakeSource();
    const informer = new Informer(source, { resyncIntervalMs: 0 });
    const seen: string[] = [];
    informer.on('add', async (o) => {
      await new Promise((r) => setTimeout(r, o.metadata!.name === 'a' ? 20 : 0));
      seen.push(o.metadata!.name!);
    });
    informer.start();
    await informer.waitForSync(1000);
    await eventually(() => source.emit !== undefined, 'the watch');
    for (const name of ['a', 'b', 'c']) source.emit!({ type: 'ADDED', object: cm(name, '2') });
    await eventually(() => seen.length === 3, 'three adds');
    expect(seen).toEqual(['a', 'b', 'c']);
    await informer.stop();
  });

  it('keeps delivering after a handler throws, and counts it', async () => {
    const source = new FakeSource();
    source.objects = [cm('a', '1'), cm('b', '1')];
    const informer = new Informer(source, { resyncIntervalMs: 0 });
    const seen: string[] = [];
    informer.on('add', (o) => {
      if (o.metadata!.name === 'a') throw new Error('boom');
      seen.push(o.metadata!.name!);
    });
    informer.start();
    await informer.waitForSync(1000);
    expect(seen).toEqual(['b']);
    expect(informer.stats().handlerErrors).toBe(1);
    await informer.stop();
  });

  it('is synced only after the initial adds reached the handlers; late add handlers get the cache', async () => {
    const source = new FakeSource();
    source.objects = [cm('a', '1')];
    const { informer, events } = start(source);
    await informer.waitForSync(1000);
    expect(events).toEqual(['add a']);
    const late: string[] = [];
    informer.on('add', (o) => void late.push(o.metadata!.name!));
    await eventually(() => late.length === 1, 'the replayed add');
    expect(late).toEqual(['a']);
    await informer.stop();
  });

  it('watches from the last resourceVersion seen (bookmarks included) after a stream ends', async () => {
    const source = new FakeSource();
    source.rv = '10';
    const { informer } = start(source);
    await informer.waitForSync(1000);
    await eventually(() => source.watchFrom.length === 1, 'a watch');
    source.emit!({ type: 'ADDED', object: cm('a', '11') });
    source.emit!({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } });
    source.end!();
    await eventually(() => source.watchFrom.length === 2, 'a second watch');
    expect(source.watchFrom).toEqual(['10', '15']);
    expect(source.lists).toBe(1);
    expect(informer.stats()).toMatchObject({ reconnects: 1, relists: 0, errors: 0, resourceVersion: '15' });
    await informer.stop();
  });

  it('relists on a 410 ERROR event and diffs the cache', async () => {
    const source = new FakeSource();
    source.objects = [cm('a', '1'), cm('b', '1')];
    const { informer, events } = start(source);
    await informer.waitForSync(1000);
    await eventually(() => source.emit !== undefined, 'a watch');
    source.objects = [cm('b', '7'), cm('c', '7')];
    source.rv = '7';
    source.emit!({
      type: 'ERROR',
      object: {
        kind: 'Status',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version: 1 (5)',
      } as ObjectHeader,
    });
    await eventually(() => events.length === 5, 'the diff');
    expect(events.slice(2)).toEqual(['update b 1>7', 'add c', 'delete a']);
    expect(informer.stats()).toMatchObject({ relists: 1, errors: 1, resourceVersion: '7' });
    expect(informer.stats().lastError).toMatchObject({ code: 410, reason: 'Expired' });
    await informer.stop();
  });

  it('retries failed lists and watches with backoff', async () => {
    const source = new FakeSource();
    source.listFailures = [new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED')];
    source.watchFailures = [new Error('socket hang up')];
    const { informer } = start(source);
    await informer.waitForSync(1000);
    await eventually(() => source.emit !== undefined, 'a watch');
    expect(source.lists).toBe(3);
    expect(source.watchFrom).toEqual(['1', '1']);
    expect(informer.stats()).toMatchObject({ errors: 3, synced: true });
    expect(informer.stats().lastError?.message).toBe('socket hang up');
    await informer.stop();
  });

  it('requestRelist drops the watch and lists again; byIndex follows updates', async () => {
    const source = new FakeSource();
    source.objects = [
      { ...cm('a', '1'), metadata: { name: 'a', namespace: 'ns', resourceVersion: '1', labels: { team: 'x' } } },
    ];
    const informer = new Informer(source, {
      resyncIntervalMs: 0,
      indexers: { team: (o) => (o.metadata?.labels?.team ? [o.metadata.labels.team] : []) },
    });
    informer.start();
    await informer.waitForSync(1000);
    expect(informer.byIndex('team', 'x')).toHaveLength(1);
    source.objects = [
      { ...cm('a', '2'), metadata: { name: 'a', namespace: 'ns', resourceVersion: '2', labels: { team: 'y' } } },
    ];
    informer.requestRelist();
    await eventually(() => informer.stats().relists === 1, 'the relist');
    expect(informer.byIndex('team', 'x')).toEqual([]);
    expect(informer.byIndex('team', 'y').map((o) => o.metadata!.resourceVersion)).toEqual(['2']);
    expect(informer.list('ns')).toHaveLength(1);
    expect(informer.list('other')).toHaveLength(0);
    expect(() => informer.byIndex('nope', 'x')).toThrow(/no index named "nope"/);
    await informer.stop();
    expect(() => informer.start()).toThrow(/cannot start again/);
  });

  it('waitForSync times out naming the last error', async () => {
    const source = new FakeSource();
    source.listFailures = Array.from({ length: 1000 }, () => new Error('forbidden-ish'));
    const { informer } = start(source);
    await expect(informer.waitForSync(50)).rejects.toThrow(/did not sync within 50 ms; last error: forbidden-ish/);
    await informer.stop();
  });
});
