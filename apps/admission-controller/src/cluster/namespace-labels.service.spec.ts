import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeApiError, type InformerFactory, type KubeHttpRequest, type KubeResources } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { ControllerConfig } from '../config/controller-config';
import { LIVE_READ_BURST, LIVE_READS_PER_SECOND, NamespaceLabels } from './namespace-labels.service';

const namespace = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

/** NamespaceLabels over an informer that knows `known`, and an API server answering `live`. */
function setup(known: KubeObject[], live: (name: string) => KubeObject | Error | Promise<KubeObject>, synced = true) {
  const calls: KubeHttpRequest[] = [];
  const informers = {
    create: () => ({
      start: () => undefined,
      get: (name: string) => known.find((object) => object.metadata?.name === name),
      hasSynced: () => synced,
    }),
  } as unknown as InformerFactory;
  const resources = {
    http: {
      json: async (request: KubeHttpRequest) => {
        calls.push(request);
        const answer = await live(decodeURIComponent(request.path.split('/').pop()!));
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  } as unknown as KubeResources;
  const labels = new NamespaceLabels({ watchTimeoutSeconds: 300 } as ControllerConfig, informers, resources);
  return { labels, calls };
}

describe('NamespaceLabels', () => {
  it('answers from the informer without calling the API server', async () => {
    const { labels, calls } = setup([namespace('shop', { team: 'shop' })], () => new Error('no call expected'));
    expect(await labels.labelsOf('shop')).toEqual({ team: 'shop' });
    expect(await labels.labelsOf(undefined)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('reads a namespace the informer has not seen yet live, once, within a time limit', async () => {
    const { labels, calls } = setup([], (name) => namespace(name, { env: 'prod' }));
    expect(await labels.labelsOf('just-created')).toEqual({ env: 'prod' });
    expect(await labels.labelsOf('just-created')).toEqual({ env: 'prod' });
    expect(calls).toEqual([{ path: '/api/v1/namespaces/just-created', totalTimeoutMs: 2_000 }]);
  });

  it('gives a namespace that does not exist no labels, and turns a failed lookup into an error naming it', async () => {
    const notFound = new KubeApiError(404, 'NotFound', 'namespaces "gone" not found');
    expect(await setup([], () => notFound).labels.labelsOf('gone')).toEqual({});
    const down = new KubeApiError(503, 'ServiceUnavailable', 'etcd is down');
    await expect(setup([], () => down).labels.labelsOf('new')).rejects.toThrow(
      'could not read namespace new: etcd is down',
    );
  });

  it("gives the namespace's object for CEL's namespaceObject, undefined when it does not exist", async () => {
    const shop = namespace('shop', { team: 'shop' });
    const notFound = new KubeApiError(404, 'NotFound', 'namespaces "gone" not found');
    const { labels } = setup([shop], () => notFound);
    expect(await labels.namespaceObject('shop')).toBe(shop);
    expect(await labels.namespaceObject('gone')).toBeUndefined();
  });

  describe('reviews naming made-up namespaces', () => {
    afterEach(() => vi.useRealTimers());
    const notFound = () => new KubeApiError(404, 'NotFound', 'namespaces not found');

    it('read at most a burst live, then a few per second; the rest fail naming the budget', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { labels, calls } = setup([], notFound);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 200 }, (_, index) => labels.labelsOf(`made-up-${index}`)),
      );
      expect(calls).toHaveLength(LIVE_READ_BURST);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(LIVE_READ_BURST);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(String(refused.reason)).toContain(
        `namespace made-up-${LIVE_READ_BURST} is not known to the namespace informer, and live namespace reads are over their budget (${LIVE_READS_PER_SECOND} per second)`,
      );
      vi.advanceTimersByTime(1_000);
      await Promise.allSettled(Array.from({ length: 200 }, (_, index) => labels.labelsOf(`later-${index}`)));
      expect(calls).toHaveLength(LIVE_READ_BURST + LIVE_READS_PER_SECOND);
    });

    it("a Namespace's own review reads nothing: a burst of Namespace creates is never over the budget", async () => {
      const { labels, calls } = setup([], notFound);
      const reviews = Array.from({ length: 200 }, (_, index) =>
        labels.labelsForRequest({ kind: { kind: 'Namespace' }, namespace: `burst-${index}` }),
      );
      expect(await Promise.all(reviews)).toEqual(Array.from({ length: 200 }, () => ({})));
      expect(calls).toHaveLength(0);
      await labels.labelsForRequest({ kind: { kind: 'Pod' }, namespace: 'burst-0' });
      expect(calls).toHaveLength(1);
    });

    it('a name already answered, or being read, costs no further read', async () => {
      let release!: (object: KubeObject) => void;
      const { labels, calls } = setup([], () => new Promise<KubeObject>((resolve) => (release = resolve)));
      const lookups = Array.from({ length: 50 }, () => labels.labelsOf('fresh'));
      release(namespace('fresh', { team: 'a' }));
      expect(await Promise.all(lookups)).toEqual(Array.from({ length: 50 }, () => ({ team: 'a' })));
      expect(await labels.labelsOf('fresh')).toEqual({ team: 'a' });
      expect(calls).toHaveLength(1);
    });

    it('are not budgeted before the informer has listed (every namespace is unknown to it then)', async () => {
      const { labels, calls } = setup([], notFound, false);
      await Promise.all(Array.from({ length: 100 }, (_, index) => labels.labelsOf(`ns-${index}`)));
      expect(calls).toHaveLength(100);
    });
  });

  it('knows a namespace the informer holds or a live read found, never one not found, without reading', async () => {
    const { labels, calls } = setup([namespace('shop', {})], (name) =>
      name === 'fresh' ? namespace('fresh', {}) : new KubeApiError(404, 'NotFound', 'not found'),
    );
    expect(labels.knows('shop')).toBe(true);
    expect(labels.knows('fresh')).toBe(false);
    await labels.labelsOf('fresh');
    await labels.labelsOf('gone');
    expect(labels.knows('fresh')).toBe(true);
    expect(labels.knows('gone')).toBe(false);
    expect(calls).toHaveLength(2);
  });
});
