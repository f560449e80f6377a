import { describe, expect, it } from 'vitest';
import {
  KubeApiError,
  type InformerFactory,
  type KubeHttpRequest,
  type KubeObject,
  type KubeResources,
} from '@edict/kube';
import type { ControllerConfig } from '../config/controller-config';
import { NamespaceLabels } from './namespace-labels.service';

const namespace = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

/** NamespaceLabels over an informer that knows `known`, and an API server answering `live`. */
function setup(known: KubeObject[], live: (name: string) => KubeObject | Error) {
  const calls: KubeHttpRequest[] = [];
  const informers = {
    create: () => ({
      start: () => undefined,
      get: (name: string) => known.find((object) => object.metadata?.name === name),
      hasSynced: () => true,
    }),
  } as unknown as InformerFactory;
  const resources = {
    http: {
      json: async (request: KubeHttpRequest) => {
        calls.push(request);
        const answer = live(decodeURIComponent(request.path.split('/').pop()!));
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
});
