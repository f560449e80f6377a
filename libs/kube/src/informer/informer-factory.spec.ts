import type { KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import type { KubeStream } from '../http/kube-http-client';
import type { KubeResources, ListQuery, ResourceRef, WatchQuery } from '../http/kube-resources';
import { eventually } from '../testing';
import { InformerFactory } from './informer-factory';

/** An API server with one ConfigMap that holds every watch open until it is aborted. */
class FakeResources {
  open = 0;

  async list<T extends KubeObject>(_ref: ResourceRef, _query: ListQuery) {
    const item = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns', resourceVersion: '1' },
    };
    return { items: [item] as T[], resourceVersion: '1' };
  }

  async watch(_ref: ResourceRef, query: WatchQuery): Promise<KubeStream> {
    this.open += 1;
    let abort!: () => void;
    const closed = new Promise<void>((resolve) => (abort = resolve)).then(() => void (this.open -= 1));
    query.signal?.addEventListener('abort', () => abort(), { once: true });
    return { closed, abort: () => abort() };
  }
}

function setup() {
  const resources = new FakeResources();
  return { resources, factory: new InformerFactory(resources as unknown as KubeResources) };
}

describe('InformerFactory', () => {
  it('drops an informer its owner stopped: the factory holds only live ones', async () => {
    const { factory } = setup();
    const first = factory.create({ apiVersion: 'v1', kind: 'ConfigMap' });
    const second = factory.create({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns' });
    expect(factory.live).toBe(2);
    first.start();
    await first.waitForSync(1_000);
    await first.stop();
    expect(factory.live).toBe(1);
    // Stopping twice changes nothing; one never started is dropped as well.
    await first.stop();
    await second.stop();
    expect(factory.live).toBe(0);
  });

  it('a later request for the same resource gets a fresh informer that lists again', async () => {
    const { factory, resources } = setup();
    const stopped = factory.create({ apiVersion: 'v1', kind: 'ConfigMap' });
    stopped.start();
    await stopped.waitForSync(1_000);
    await stopped.stop();
    expect(() => stopped.start()).toThrow(/cannot start again/);

    const fresh = factory.create({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(fresh).not.toBe(stopped);
    fresh.start();
    await fresh.waitForSync(1_000);
    expect(fresh.get('c', 'ns')).toMatchObject({ metadata: { name: 'c' } });
    expect(factory.live).toBe(1);
    await eventually(() => resources.open === 1, 'only the fresh informer watches');
  });

  it('keeps the owner\u2019s own onStop and stops the live informers with the module', async () => {
    const { factory, resources } = setup();
    const calls: string[] = [];
    const informer = factory.create({ apiVersion: 'v1', kind: 'ConfigMap', onStop: () => calls.push('owner') });
    informer.start();
    await informer.waitForSync(1_000);
    await factory.onModuleDestroy();
    expect(calls).toEqual(['owner']);
    expect(factory.live).toBe(0);
    await eventually(() => resources.open === 0, 'watches closed');
  });
});
