// Table responses over HTTP: what kubectl get asks for, as kube-apiserver answers it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { openWatch, startServer, type Running } from '../testing/http';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const CMS = '/api/v1/namespaces/default/configmaps';

let running: Running;
beforeEach(async () => {
  running = await startServer();
});
afterEach(async () => {
  await running.server.stop();
});

async function get(
  path: string,
  accept = TABLE,
): Promise<{ status: number; body: JsonObject; warning: string | null }> {
  const response = await fetch(`${running.url}${path}`, { headers: { Accept: accept } });
  return {
    status: response.status,
    body: (await response.json()) as JsonObject,
    warning: response.headers.get('warning'),
  };
}

const rowCells = (table: JsonObject) => (table.rows as JsonObject[]).map((row) => row.cells as unknown[]);
const configMap = (name: string, labels: Record<string, string> = {}) =>
  running.server.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels },
    data: { a: '1' },
  });

describe('Table responses', () => {
  it('list: the columns and a row per object, paged with limit/continue and filtered by selectors', async () => {
    for (const name of ['a', 'b', 'c']) configMap(name, { tier: name === 'b' ? 'back' : 'front' });
    const first = await get(`${CMS}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { remainingItemCount: 1 },
    });
    expect((first.body.columnDefinitions as JsonObject[]).map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(rowCells(first.body)).toEqual([
      ['a', 1, expect.stringMatching(/^\d+s$/)],
      ['b', 1, expect.stringMatching(/^\d+s$/)],
    ]);
    const token = encodeURIComponent(String((first.body.metadata as JsonObject).continue));
    const rest = await get(`${CMS}?limit=2&continue=${token}`);
    expect(rowCells(rest.body).map((cells) => (cells as string[])[0])).toEqual(['c']);
    const front = await get(`${CMS}?labelSelector=tier%3Dfront&fieldSelector=metadata.name%21%3Da`);
    expect(rowCells(front.body).map((cells) => (cells as string[])[0])).toEqual(['c']);
    const object = (front.body.rows as JsonObject[])[0]!.object as JsonObject;
    expect(object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'c', namespace: 'default' },
    });
  });

  it('get: a one-row Table with the object resourceVersion; includeObject=Object embeds the object', async () => {
    const stored = configMap('one');
    const { body } = await get(`${CMS}/one?includeObject=Object`);
    expect(body.metadata).toEqual({ resourceVersion: (stored.metadata as JsonObject).resourceVersion });
    expect((body.rows as JsonObject[])[0]!.object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      data: { a: '1' },
    });
    expect((await get(`${CMS}/missing`)).status).toBe(404);
  });

  it('answers plain JSON without a Table in Accept, 406 for conversions it lacks, 400 for a bad includeObject', async () => {
    configMap('one');
    expect((await get(`${CMS}/one`, 'application/json')).body.kind).toBe('ConfigMap');
    const refused = await get(CMS, 'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io');
    expect(refused.status).toBe(406);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable' });
    expect((await get(`${CMS}?includeObject=Everything`)).status).toBe(400);
  });

  it('watch: each event a one-row Table; only the first carries column definitions', async () => {
    configMap('before');
    const watch = await openWatch(`${running.url}${CMS}?watch=true`, { Accept: TABLE });
    await watch.waitFor(1);
    configMap('after');
    running.server.delete('v1', 'ConfigMap', 'before', 'default');
    const events = await watch.waitFor(3);
    watch.close();
    expect(events.map((event) => [event.type, rowCells(event.object)[0]![0]])).toEqual([
      ['ADDED', 'before'],
      ['ADDED', 'after'],
      ['DELETED', 'before'],
    ]);
    expect((events[0]!.object.columnDefinitions as JsonObject[]).map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(events.slice(1).map((event) => event.object.columnDefinitions)).toEqual([null, null]);
  });
});

describe('custom resource columns', () => {
  const crd = (columns: JsonObject[]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          additionalPrinterColumns: columns,
        },
      ],
    },
  });

  it('serves the declared columns and warns, in the Warning header, about a path it cannot evaluate', async () => {
    const columns: JsonObject[] = [
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'Parts', type: 'string', jsonPath: '.spec.parts[1:]', priority: 1 },
    ];
    expect(
      (await running.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(columns))).status,
    ).toBe(201);
    running.server.create({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 4, parts: ['a', 'b'] },
    });
    const { body, warning } = await get('/apis/example.com/v1/widgets');
    expect((body.columnDefinitions as JsonObject[]).map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Size', 0],
      ['Parts', 1],
    ]);
    expect(rowCells(body)).toEqual([['w', 4, null]]);
    expect(warning).toContain('printer column \\"Parts\\": jsonPath \\".spec.parts[1:]\\": unsupported selector');
  });

  it("refuses a CRD whose columns kube would refuse: unknown type, path not starting with '.'", async () => {
    const response = await running.request(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd([{ name: 'Size', type: 'int', jsonPath: 'spec.size' }]),
    );
    expect(response.status).toBe(422);
    const causes = ((response.body.details as JsonObject).causes as JsonObject[]).map((cause) => cause.field);
    expect(causes).toEqual([
      'spec.versions[0].additionalPrinterColumns[0].type',
      'spec.versions[0].additionalPrinterColumns[0].jsonPath',
    ]);
  });
});
