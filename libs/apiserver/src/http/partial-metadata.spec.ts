// Metadata-only answers over HTTP: what client-go's metadata client asks for, as kube-apiserver answers it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { openWatch, startServer, type Running } from '../testing/http';

const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const SINGLE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const CMS = '/api/v1/namespaces/default/configmaps';

let running: Running;
beforeEach(async () => {
  running = await startServer();
});
afterEach(async () => {
  await running.server.stop();
});

async function get(path: string, accept: string): Promise<{ status: number; body: JsonObject }> {
  const response = await fetch(`${running.url}${path}`, { headers: { Accept: accept } });
  return { status: response.status, body: (await response.json()) as JsonObject };
}

const configMap = (name: string, labels: Record<string, string> = {}) =>
  running.server.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels, annotations: { note: name } },
    data: { big: 'x'.repeat(100) },
  });

describe('PartialObjectMetadata answers', () => {
  it('list: PartialObjectMetadataList of the items metadata only, paged and filtered as the full list', async () => {
    for (const name of ['a', 'b', 'c']) configMap(name, { tier: name === 'b' ? 'back' : 'front' });
    const full = await running.request('GET', `${CMS}?limit=2`);
    const first = await get(`${CMS}?limit=2`, LIST);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: full.body.metadata,
      items: (full.body.items as JsonObject[]).map((item) => ({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: item.metadata,
      })),
    });
    const front = await get(`${CMS}?labelSelector=tier%3Dfront`, LIST);
    expect((front.body.items as JsonObject[]).map((item) => (item.metadata as JsonObject).name)).toEqual(['a', 'c']);
    const beta = await get(CMS, LIST.replace('v=v1', 'v=v1beta1'));
    expect(beta.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1beta1' });
  });

  it('get: PartialObjectMetadata of the object', async () => {
    configMap('a');
    const full = await running.request('GET', `${CMS}/a`);
    const partial = await get(`${CMS}/a`, SINGLE);
    expect(partial).toEqual({
      status: 200,
      body: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: full.body.metadata },
    });
  });

  it('answers 406 for the single form of a list, the list form of an object or a watch, and other versions', async () => {
    configMap('a');
    const only = (accept: string) => accept.replace(/,application\/json$/, '');
    expect(await get(CMS, only(SINGLE))).toMatchObject({ status: 406, body: { reason: 'NotAcceptable' } });
    expect(await get(`${CMS}/a`, only(LIST))).toMatchObject({ status: 406, body: { reason: 'NotAcceptable' } });
    expect((await get(`${CMS}?watch=true`, only(LIST))).status).toBe(406);
    expect((await get(CMS, only(LIST).replace('v=v1', 'v=v2'))).status).toBe(406);
    // With the plain type after it, an unserved form falls back to the full object.
    expect((await get(`${CMS}/a`, 'application/json;as=Other;g=meta.k8s.io;v=v1,application/json')).body).toMatchObject(
      {
        kind: 'ConfigMap',
      },
    );
  });

  it('watch: every event carries PartialObjectMetadata, bookmarks too', async () => {
    await running.server.stop();
    running = await startServer({ bookmarkIntervalMs: 100 });
    configMap('a');
    const watch = await openWatch(`${running.url}${CMS}?watch=true&allowWatchBookmarks=true`, { Accept: SINGLE });
    expect(watch.status).toBe(200);
    configMap('b');
    running.server.delete('v1', 'ConfigMap', 'a', 'default');
    const events = (await watch.waitFor(4)).slice(0, 4);
    watch.close();
    expect(events.map((event) => [event.type, (event.object.metadata as JsonObject).name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['DELETED', 'a'],
      ['BOOKMARK', undefined],
    ]);
    for (const { object } of events) {
      expect(Object.keys(object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(object).toMatchObject({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: expect.any(String) },
      });
    }
    for (const { object } of events.slice(0, 3))
      expect(object).toMatchObject({ metadata: { annotations: { note: expect.any(String) } } });
  });
});
