import { afterEach, describe, expect, it } from 'vitest';
import { dig, openWatch, startServer, type Running } from '../testing/http';

let running: Running;
afterEach(async () => {
  await running?.server.stop();
});

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = { a: '1' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }] }] },
    },
  },
});

const CMS = '/api/v1/namespaces/default/configmaps';

describe('discovery', () => {
  it('serves version, health, core and group discovery', async () => {
    running = await startServer();
    const version = await running.request('GET', '/version');
    expect(version.body).toMatchObject({ major: '1', minor: '32' });
    const health = await fetch(`${running.url}/readyz`);
    expect(await health.text()).toBe('ok');
    const root = await running.request('GET', '/');
    expect(root.body.paths).toEqual(expect.arrayContaining(['/api', '/api/v1', '/apis', '/apis/apps/v1', '/version']));
    const api = await running.request('GET', '/api');
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const core = await running.request('GET', '/api/v1');
    const pods = (core.body.resources as Array<Record<string, unknown>>).find((r) => r.name === 'pods');
    expect(pods).toMatchObject({
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      shortNames: ['po'],
      categories: ['all'],
    });
    expect((core.body.resources as Array<Record<string, unknown>>).some((r) => r.name === 'pods/status')).toBe(true);
    const groups = await running.request('GET', '/apis');
    const names = (groups.body.groups as Array<{ name: string }>).map((g) => g.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'apps',
        'batch',
        'coordination.k8s.io',
        'admissionregistration.k8s.io',
        'apiextensions.k8s.io',
        'rbac.authorization.k8s.io',
        'networking.k8s.io',
        'policy',
        'events.k8s.io',
      ]),
    );
    const apps = await running.request('GET', '/apis/apps/v1');
    expect(apps.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'apps/v1' });
    expect(await running.request('GET', '/apis/nope/v1')).toMatchObject({ status: 404, body: { reason: 'NotFound' } });
  });

  it('publishes OpenAPI v3 PATCH operations with fieldValidation, keyed by group version', async () => {
    running = await startServer();
    const index = await running.request('GET', '/openapi/v3');
    const url = (index.body.paths as Record<string, { serverRelativeURL: string }>)['apis/apps/v1']!.serverRelativeURL;
    const doc = await running.request('GET', url);
    const patch = (doc.body.paths as Record<string, { patch?: Record<string, unknown> }>)[
      '/apis/apps/v1/namespaces/{namespace}/deployments/{name}'
    ]!.patch!;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect((patch.parameters as Array<{ name: string }>).map((p) => p.name)).toContain('fieldValidation');
  });
});

describe('CRUD', () => {
  it('creates with system metadata and reads back; lists with kind List and resourceVersion', async () => {
    running = await startServer();
    const created = await running.request('POST', CMS, cm('one'));
    expect(created.status).toBe(201);
    const meta = created.body.metadata as Record<string, unknown>;
    expect(meta).toMatchObject({ name: 'one', namespace: 'default' });
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meta.generation).toBeUndefined();
    const got = await running.request('GET', `${CMS}/one`);
    expect(got.body).toEqual(created.body);
    const list = await running.request('GET', CMS);
    expect(list.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(Number((list.body.metadata as Record<string, string>).resourceVersion)).toBeGreaterThanOrEqual(
      Number(meta.resourceVersion),
    );
    expect((list.body.items as unknown[]).length).toBe(1);
  });

  it('answers kube-apiserver Status bodies for NotFound, AlreadyExists, Conflict and Invalid', async () => {
    running = await startServer();
    expect(await running.request('GET', `${CMS}/x`)).toEqual({
      status: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "x" not found',
        reason: 'NotFound',
        details: { name: 'x', kind: 'configmaps' },
        code: 404,
      },
    });
    const deploy = await running.request('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(deploy.body).toMatchObject({
      message: 'deployments.apps "web" not found',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
    await running.request('POST', CMS, cm('one'));
    expect(await running.request('POST', CMS, cm('one'))).toMatchObject({
      status: 409,
      body: { reason: 'AlreadyExists', message: 'configmaps "one" already exists' },
    });
    const stale = { ...cm('one'), metadata: { name: 'one', resourceVersion: '1' } };
    expect(await running.request('PUT', `${CMS}/one`, stale)).toMatchObject({
      status: 409,
      body: {
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again',
      },
    });
    const noName = await running.request('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
    expect(noName).toMatchObject({
      status: 422,
      body: {
        reason: 'Invalid',
        message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
        details: { kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', field: 'metadata.name' }] },
      },
    });
    const badName = await running.request('POST', CMS, cm('Bad_Name'));
    expect(badName.status).toBe(422);
    expect(badName.body.message).toContain('a lowercase RFC 1123 subdomain must consist of');
    expect(await running.request('POST', '/api/v1/namespaces/missing/configmaps', cm('x'))).toMatchObject({
      status: 404,
      body: { message: 'namespaces "missing" not found', details: { name: 'missing', kind: 'namespaces' } },
    });
    expect((await running.request('PUT', `${CMS}`, cm('x'))).status).toBe(405);
    expect((await running.request('POST', CMS, '{not json')).status).toBe(400);
    expect(await running.request('PUT', `${CMS}/one`, cm('two'))).toMatchObject({
      status: 400,
      body: { reason: 'BadRequest', message: 'the name of the object (two) does not match the name on the URL (one)' },
    });
  });

  it('generates names, bumps resourceVersion on change only, and generation on spec changes', async () => {
    running = await startServer();
    const generated = await running.request('POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-' },
    });
    expect((generated.body.metadata as Record<string, string>).name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);

    const path = '/apis/apps/v1/namespaces/default/deployments';
    const created = (await running.request('POST', path, deployment('web'))).body;
    expect(created.metadata).toMatchObject({ generation: 1 });
    const same = (await running.request('PUT', `${path}/web`, created)).body;
    expect((same.metadata as Record<string, unknown>).resourceVersion).toBe(
      (created.metadata as Record<string, unknown>).resourceVersion,
    );
    const labelled = (
      await running.request(
        'PATCH',
        `${path}/web`,
        { metadata: { labels: { x: 'y' } } },
        'application/merge-patch+json',
      )
    ).body;
    expect(labelled.metadata).toMatchObject({ generation: 1, labels: { x: 'y' } });
    const scaled = (
      await running.request('PATCH', `${path}/web`, { spec: { replicas: 3 } }, 'application/merge-patch+json')
    ).body;
    expect(scaled.metadata).toMatchObject({ generation: 2 });
    // The main resource ignores status; the status subresource changes only status.
    const withStatus = (await running.request('PUT', `${path}/web`, { ...scaled, status: { replicas: 9 } })).body;
    expect(withStatus.status).toBeUndefined();
    const status = await running.request(
      'PATCH',
      `${path}/web/status`,
      { status: { replicas: 3 }, spec: { replicas: 7 } },
      'application/merge-patch+json',
    );
    expect(status.body).toMatchObject({ status: { replicas: 3 }, spec: { replicas: 3 }, metadata: { generation: 2 } });
  });

  it('honours dryRun=All on create, update and delete', async () => {
    running = await startServer();
    const dry = await running.request('POST', `${CMS}?dryRun=All`, cm('dry'));
    expect(dry.status).toBe(201);
    expect((await running.request('GET', `${CMS}/dry`)).status).toBe(404);
    await running.request('POST', CMS, cm('real'));
    await running.request('PATCH', `${CMS}/real?dryRun=All`, { data: { a: '2' } }, 'application/merge-patch+json');
    await running.request('DELETE', `${CMS}/real?dryRun=All`);
    expect((await running.request('GET', `${CMS}/real`)).body).toMatchObject({ data: { a: '1' } });
  });

  it('deletes: Status for most types, deletecollection by selector, namespace deletion takes its contents', async () => {
    running = await startServer();
    await running.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team' },
    });
    const teamCms = '/api/v1/namespaces/team/configmaps';
    await running.request('POST', teamCms, cm('a', { tier: 'x' }));
    await running.request('POST', teamCms, cm('b', { tier: 'y' }));
    await running.request('POST', teamCms, cm('c', { tier: 'y' }));
    const deleted = await running.request('DELETE', `${teamCms}/a`);
    expect(deleted.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'a', kind: 'configmaps' },
    });
    const collection = await running.request('DELETE', `${teamCms}?labelSelector=tier%3Dy`);
    expect((collection.body.items as unknown[]).length).toBe(2);
    await running.request('POST', teamCms, cm('d'));
    await running.request('DELETE', '/api/v1/namespaces/team');
    expect((await running.request('GET', '/api/v1/namespaces/team')).status).toBe(404);
    expect(running.server.list('v1', 'ConfigMap', 'team')).toEqual([]);
  });

  it('keeps objects with finalizers until the last one is removed', async () => {
    running = await startServer();
    await running.request('POST', CMS, { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const pending = await running.request('DELETE', `${CMS}/held`);
    expect(pending.status).toBe(202);
    const held = (await running.request('GET', `${CMS}/held`)).body;
    expect((held.metadata as Record<string, unknown>).deletionTimestamp).toBeDefined();
    await running.request('PATCH', `${CMS}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await running.request('GET', `${CMS}/held`)).status).toBe(404);
  });
});

describe('list', () => {
  it('filters by label and field selectors and pages with limit/continue', async () => {
    running = await startServer();
    for (const [name, labels] of [
      ['a', { env: 'prod', tier: 'web' }],
      ['b', { env: 'dev' }],
      ['c', { env: 'prod' }],
      ['d', {}],
    ] as const) {
      await running.request('POST', CMS, cm(name, labels));
    }
    const names = async (query: string) =>
      ((await running.request('GET', `${CMS}?${query}`)).body.items as Array<{ metadata: { name: string } }>).map(
        (i) => i.metadata.name,
      );
    expect(await names('labelSelector=env%3Dprod')).toEqual(['a', 'c']);
    expect(await names('labelSelector=env%3D%3Dprod,tier')).toEqual(['a']);
    expect(await names('labelSelector=env!%3Dprod')).toEqual(['b', 'd']);
    expect(await names('labelSelector=env%20in%20(dev,prod),!tier')).toEqual(['b', 'c']);
    expect(await names('labelSelector=env%20notin%20(prod)')).toEqual(['b', 'd']);
    expect(await names('fieldSelector=metadata.name%3Db')).toEqual(['b']);
    expect(await names('fieldSelector=metadata.name!%3Db,metadata.namespace%3Ddefault')).toEqual(['a', 'c', 'd']);
    expect(await running.request('GET', `${CMS}?fieldSelector=data.a%3D1`)).toMatchObject({
      status: 400,
      body: { reason: 'BadRequest', message: 'field label not supported: data.a' },
    });

    const first = (await running.request('GET', `${CMS}?limit=3`)).body;
    const meta = first.metadata as Record<string, unknown>;
    expect((first.items as unknown[]).length).toBe(3);
    expect(meta.remainingItemCount).toBe(1);
    const second = (await running.request('GET', `${CMS}?limit=3&continue=${meta.continue as string}`)).body;
    expect((second.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['d']);
    expect((second.metadata as Record<string, unknown>).continue).toBeUndefined();
    await running.request('POST', CMS, cm('e'));
    running.server.compact();
    expect((await running.request('GET', `${CMS}?limit=3&continue=${meta.continue as string}`)).status).toBe(410);
  });

  it('serves items across namespaces on the cluster path and keeps kind off built-in list items', async () => {
    running = await startServer();
    await running.request('POST', CMS, cm('a'));
    await running.request('POST', '/api/v1/namespaces/kube-system/configmaps', cm('b'));
    const all = (await running.request('GET', '/api/v1/configmaps')).body;
    const items = all.items as Array<Record<string, unknown>>;
    expect(items.map((i) => (i.metadata as Record<string, string>).namespace)).toEqual(['default', 'kube-system']);
    expect(items[0]!.kind).toBeUndefined();
  });
});

describe('patch', () => {
  it('applies JSON, merge and strategic merge patches; 415 for strategic on custom resources', async () => {
    running = await startServer();
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    await running.request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('web'));
    const strategic = await running.request(
      'PATCH',
      path,
      {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'app', image: 'nginx:2', env: [{ name: 'B', value: '2' }] },
                { name: 'side', image: 'busybox' },
              ],
            },
          },
        },
      },
      'application/strategic-merge-patch+json',
    );
    const containers = dig<Array<Record<string, unknown>>>(strategic.body, 'spec.template.spec.containers');
    expect(containers).toEqual([
      {
        name: 'app',
        image: 'nginx:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      { name: 'side', image: 'busybox' },
    ]);
    const removed = await running.request(
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } } },
      'application/strategic-merge-patch+json',
    );
    expect(dig<unknown[]>(removed.body, 'spec.template.spec.containers').length).toBe(1);
    const merge = await running.request(
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }] } } } },
      'application/merge-patch+json',
    );
    expect(dig(merge.body, 'spec.template.spec.containers')).toEqual([{ name: 'only', image: 'x' }]);
    const json = await running.request(
      'PATCH',
      path,
      [{ op: 'replace', path: '/spec/replicas', value: 5 }],
      'application/json-patch+json',
    );
    expect(dig(json.body, 'spec.replicas')).toBe(5);
    const failing = await running.request(
      'PATCH',
      path,
      [{ op: 'test', path: '/spec/replicas', value: 1 }],
      'application/json-patch+json',
    );
    expect(failing.status).toBe(422);
    expect((await running.request('PATCH', path, {}, 'text/plain')).status).toBe(415);
  });

  it('server-side apply creates or merges and needs a fieldManager', async () => {
    running = await startServer();
    const path = `${CMS}/applied`;
    const noManager = await running.request('PATCH', path, cm('applied'), 'application/apply-patch+yaml');
    expect(noManager).toMatchObject({
      status: 422,
      body: {
        message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      },
    });
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n';
    expect(
      (await running.request('PATCH', `${path}?fieldManager=me`, yaml, 'application/apply-patch+yaml')).status,
    ).toBe(201);
    // Another manager's configuration merges in; the same manager's drops what it no longer applies.
    const onlyB = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  b: "2"\n';
    const merged = await running.request('PATCH', `${path}?fieldManager=other`, onlyB, 'application/apply-patch+yaml');
    expect(merged).toMatchObject({ status: 200, body: { data: { a: '1', b: '2' } } });
    const pruned = await running.request('PATCH', `${path}?fieldManager=me`, onlyB, 'application/apply-patch+yaml');
    expect(pruned).toMatchObject({ status: 200, body: { data: { b: '2' } } });
    expect((pruned.body as { data: object }).data).not.toHaveProperty('a');
  });
});

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wg'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { status: {} },
      },
    ],
  },
};

describe('custom resources', () => {
  it('serves a CRD at once and stops serving it (and its objects) when it is deleted', async () => {
    running = await startServer();
    const created = await running.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(created.status).toBe(201);
    expect(dig<Array<{ type: string }>>(created.body, 'status.conditions').map((c) => c.type)).toEqual([
      'NamesAccepted',
      'Established',
    ]);
    const discovery = await running.request('GET', '/apis/example.com/v1');
    expect(discovery.body.resources).toContainEqual(
      expect.objectContaining({ name: 'widgets', kind: 'Widget', namespaced: true, shortNames: ['wg'] }),
    );
    expect(discovery.body.resources).toContainEqual(expect.objectContaining({ name: 'widgets/status' }));
    const path = '/apis/example.com/v1/namespaces/default/widgets';
    const widget = await running.request('POST', path, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 1 },
      status: { ok: true },
    });
    expect(widget.body).toMatchObject({ metadata: { generation: 1 }, spec: { size: 1 } });
    expect(widget.body.status).toBeUndefined();
    const list = await running.request('GET', path);
    expect((list.body.items as Array<Record<string, unknown>>)[0]).toMatchObject({
      kind: 'Widget',
      apiVersion: 'example.com/v1',
    });
    expect(
      await running.request('PATCH', `${path}/w`, { spec: { size: 2 } }, 'application/strategic-merge-patch+json'),
    ).toMatchObject({
      status: 415,
      body: { reason: 'UnsupportedMediaType' },
    });
    expect(
      (await running.request('PATCH', `${path}/w`, { spec: { size: 2 } }, 'application/merge-patch+json')).body,
    ).toMatchObject({ metadata: { generation: 2 } });
    const invalidCrd = await running.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...crd,
      metadata: { name: 'wrong' },
    });
    expect(invalidCrd.status).toBe(422);
    await running.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect((await running.request('GET', '/apis/example.com/v1')).status).toBe(404);
    expect((await running.request('GET', path)).status).toBe(404);
    expect(
      ((await running.request('GET', '/apis')).body.groups as Array<{ name: string }>).map((g) => g.name),
    ).not.toContain('example.com');
  });
});

describe('watch', () => {
  it('streams the current state then changes, with selector enter/leave', async () => {
    running = await startServer();
    await running.request('POST', CMS, cm('a', { app: 'x' }));
    await running.request('POST', CMS, cm('b', { app: 'y' }));
    const watch = await openWatch(`${running.url}${CMS}?watch=1&labelSelector=app%3Dx`);
    expect(watch.status).toBe(200);
    await watch.waitFor(1);
    await running.request('PATCH', `${CMS}/a`, { data: { a: '2' } }, 'application/merge-patch+json');
    await running.request('PATCH', `${CMS}/b`, { metadata: { labels: { app: 'x' } } }, 'application/merge-patch+json');
    await running.request('PATCH', `${CMS}/a`, { metadata: { labels: { app: 'z' } } }, 'application/merge-patch+json');
    await running.request('DELETE', `${CMS}/b`);
    const events = await watch.waitFor(5);
    watch.close();
    expect(events.map((e) => `${e.type} ${(e.object.metadata as Record<string, string>).name}`)).toEqual([
      'ADDED a',
      'MODIFIED a',
      'ADDED b',
      'DELETED a',
      'DELETED b',
    ]);
    expect(events[0]!.object.kind).toBe('ConfigMap');
  });

  it('resumes from a resourceVersion, and answers 410 as an ERROR event after compaction', async () => {
    running = await startServer();
    const first = (await running.request('POST', CMS, cm('a'))).body;
    const rv = (first.metadata as Record<string, string>).resourceVersion;
    await running.request('POST', CMS, cm('b'));
    const resumed = await openWatch(`${running.url}${CMS}?watch=true&resourceVersion=${rv}`);
    const events = await resumed.waitFor(1);
    resumed.close();
    expect(events.map((e) => `${e.type} ${(e.object.metadata as Record<string, string>).name}`)).toEqual(['ADDED b']);

    running.server.compact();
    const stale = await openWatch(`${running.url}${CMS}?watch=true&resourceVersion=${rv}`);
    await stale.ended;
    expect(stale.events).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({
          kind: 'Status',
          status: 'Failure',
          reason: 'Expired',
          code: 410,
          message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/),
        }),
      },
    ]);
  });

  it('sends bookmarks when allowed and ends at timeoutSeconds; bounded history expires old versions', async () => {
    running = await startServer({ bookmarkIntervalMs: 50, historyLimit: 2 });
    const watch = await openWatch(
      `${running.url}${CMS}?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${running.server.store.resourceVersion}`,
    );
    const started = Date.now();
    await watch.ended;
    expect(Date.now() - started).toBeLessThan(2500);
    const bookmark = watch.events.find((e) => e.type === 'BOOKMARK');
    expect(bookmark?.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: expect.any(String) },
    });

    const before = running.server.store.resourceVersion;
    for (const name of ['a', 'b', 'c']) await running.request('POST', CMS, cm(name));
    const old = await openWatch(`${running.url}${CMS}?watch=1&resourceVersion=${before}`);
    await old.ended;
    expect(old.events[0]?.type).toBe('ERROR');
  });

  it('ends open watches on closeWatches() and stop()', async () => {
    running = await startServer();
    const watch = await openWatch(`${running.url}${CMS}?watch=1`);
    running.server.closeWatches();
    await watch.ended;
    const again = await openWatch(`${running.url}${CMS}?watch=1`);
    await running.server.stop();
    await again.ended;
  });
});
