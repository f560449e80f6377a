import { describe, expect, it } from 'vitest';
import type { KubeStream } from '../http/kube-http-client';
import type { KubeResources, ListQuery, ResourceRef, WatchQuery } from '../http/kube-resources';
import type { KubeObject } from '@edict/foundation';
import { eventually } from '../testing';
import type { Informer } from './informer';
import { InformerFactory } from './informer-factory';
import { InformerService } from './informer-service';

/** An API server that lists `objects` per kind and holds every watch open until it is aborted. */
class FakeResources {
  readonly watches: Array<{ kind: string; timeoutSeconds?: number }> = [];
  open = 0;

  constructor(private readonly objects: Record<string, KubeObject[]>) {}

  async list<T extends KubeObject>(ref: ResourceRef, _query: ListQuery) {
    return { items: (this.objects[ref.kind] ?? []) as T[], resourceVersion: '1' };
  }

  async watch(ref: ResourceRef, query: WatchQuery): Promise<KubeStream> {
    this.watches.push({ kind: ref.kind, timeoutSeconds: query.timeoutSeconds });
    this.open += 1;
    let abort!: () => void;
    const closed = new Promise<void>((resolve) => (abort = resolve)).then(() => void (this.open -= 1));
    query.signal?.addEventListener('abort', () => abort(), { once: true });
    return { closed, abort: () => abort() };
  }
}

class TwoKinds extends InformerService {
  readonly secrets: Informer<KubeObject>;
  readonly configMaps: Informer<KubeObject>;

  constructor(factory: InformerFactory) {
    super(factory, 60);
    this.secrets = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'Secret', metadataOnly: true });
    this.configMaps = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' });
  }
}

const object = (kind: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '1', labels: { a: 'b' } },
  data: { key: 'value' },
});

function setup() {
  const resources = new FakeResources({ Secret: [object('Secret', 's')], ConfigMap: [object('ConfigMap', 'c')] });
  const factory = new InformerFactory(resources as unknown as KubeResources);
  return { resources, factory, service: new TwoKinds(factory) };
}

describe('InformerService', () => {
  it('starts nothing before the module initializes, then every informer with its watch timeout', async () => {
    const { resources, service } = setup();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(service.hasSynced()).toBe(false);
    expect(resources.watches).toEqual([]);

    service.onModuleInit();
    await service.waitForSync(1_000);
    expect(service.hasSynced()).toBe(true);
    await eventually(() => resources.watches.length === 2, 'both watches');
    expect(resources.watches.map((watch) => watch.kind).sort()).toEqual(['ConfigMap', 'Secret']);
    // Each watch asks for a length between the timeout and twice it.
    for (const { timeoutSeconds } of resources.watches) {
      expect(timeoutSeconds).toBeGreaterThanOrEqual(60);
      expect(timeoutSeconds).toBeLessThanOrEqual(120);
    }
  });

  it('keeps only identifying metadata for a metadata-only informer', async () => {
    const { service } = setup();
    service.onModuleInit();
    await service.waitForSync(1_000);
    expect(service.secrets.get('s', 'ns')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns', uid: 'uid-s', resourceVersion: '1' },
    });
    expect(service.configMaps.get('c', 'ns')).toEqual(object('ConfigMap', 'c'));
  });

  it('leaves stopping to the factory when the module is destroyed', async () => {
    const { resources, factory, service } = setup();
    service.onModuleInit();
    await eventually(() => resources.open === 2, 'both watches open');
    await factory.onModuleDestroy();
    expect(resources.open).toBe(0);
  });
});
