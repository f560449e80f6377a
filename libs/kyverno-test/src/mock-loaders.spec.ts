import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { FakeApiServer, parseApiPath } from './fake-api-server';
import { createContextLoaders, createResourceLoader } from './mock-loaders';
import type { LoadedTest } from './types';
import { emptyCelDocuments } from './cel-documents';
import { EMPTY_CONTEXT } from './context-file';
import { EMPTY_VALUES } from './values-file';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string, labels?: Record<string, string>) =>
  ({
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
  }) as KubeObject;

function loaded(extra: Partial<LoadedTest> = {}, cluster = false): LoadedTest {
  return {
    definition: {
      file: 't',
      dir: '/',
      name: 't',
      policies: [],
      resources: [],
      targetResources: [],
      exceptions: [],
      clusterResources: cluster ? ['c.yaml'] : [],
      apiCallResponses: [],
      jsonPayloads: [],
      paramResources: [],
      globalContextEntries: [],
      results: [],
    },
    policies: [],
    exceptions: [],
    resources: [],
    targetResources: [],
    clusterResources: [],
    cloneSources: [],
    crdPlurals: {},
    values: EMPTY_VALUES,
    cel: emptyCelDocuments(),
    jsonPayloads: [],
    params: [],
    context: EMPTY_CONTEXT,
    globalContext: [],
    ...extra,
  };
}

describe('FakeApiServer', () => {
  const objects = [
    obj('v1', 'Pod', 'a', 'x', { app: 'web' }),
    obj('v1', 'Pod', 'b', 'y'),
    obj('networking.k8s.io/v1', 'Ingress', 'i', 'x'),
    obj('cloud.google.com/v1', 'ComputeClass', 'spot'),
  ];
  const api = new FakeApiServer(objects, { computeclasses: { group: 'cloud.google.com', kind: 'ComputeClass' } });

  it('gets one object and lists with namespace and label selector', () => {
    expect(api.get('/api/v1/namespaces/x/pods/a')).toBe(objects[0]);
    expect(api.get('/api/v1/namespaces/x/pods/zz')).toBeUndefined();
    expect(api.get('/api/v1/pods')).toMatchObject({
      apiVersion: 'v1',
      kind: 'PodList',
      items: [objects[0], objects[1]],
    });
    expect(api.get('/api/v1/pods?labelSelector=app%3Dweb')).toMatchObject({ items: [objects[0]] });
    expect(api.get('/apis/networking.k8s.io/v1/ingresses')).toMatchObject({ kind: 'IngressList', items: [objects[2]] });
    expect(api.get('/apis/cloud.google.com/v1/computeclasses/spot')).toBe(objects[3]);
  });

  it('finds objects under the plural of their kind (pluralOfKind)', () => {
    const status: KubeObject = { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0' } };
    const endpoints: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'n' } };
    const api = new FakeApiServer([status, endpoints]);
    expect(api.get('/api/v1/componentstatuses/etcd-0')).toBe(status);
    expect(api.get('/api/v1/namespaces/n/endpoints/web')).toBe(endpoints);
  });

  it('parses paths', () => {
    expect(parseApiPath('/api/v1/namespaces/foo')).toMatchObject({
      group: '',
      plural: 'namespaces',
      name: 'foo',
      namespace: undefined,
    });
    expect(parseApiPath('/apis/apps/v1/namespaces/n/deployments')).toMatchObject({
      group: 'apps',
      namespace: 'n',
      plural: 'deployments',
    });
    expect(parseApiPath('/healthz')).toBeUndefined();
  });
});

describe('context loaders', () => {
  const cluster = { policyNamespace: undefined };
  it('load nothing without mocks', async () => {
    const loaders = createContextLoaders(loaded({ resources: [obj('v1', 'ConfigMap', 'cm', 'default')] }));
    expect(await loaders.configMap('default', 'cm', cluster)).toBeUndefined();
    expect(await loaders.apiCall({ urlPath: '/api/v1/configmaps' }, cluster)).toBeUndefined();
    expect(await loaders.globalReference('x', cluster)).toBeUndefined();
    expect(await loaders.imageRegistry('nginx', undefined, cluster)).toBeUndefined();
  });

  it('serve ConfigMaps and API paths from the fake cluster when the test has clusterResources', async () => {
    const cm = obj('v1', 'ConfigMap', 'cm', 'default');
    const loaders = createContextLoaders(
      loaded({ clusterResources: [cm], resources: [obj('v1', 'Pod', 'p', 'default')] }, true),
    );
    expect(await loaders.configMap('default', 'cm', cluster)).toBe(cm);
    expect(await loaders.configMap('other', 'cm', cluster)).toBeUndefined();
    expect(await loaders.apiCall({ urlPath: '/api/v1/pods' }, cluster)).toMatchObject({
      items: [{ metadata: { name: 'p' } }],
    });
  });

  it('answer service calls from apiCallResponses and fail on error statuses', async () => {
    const test = loaded();
    test.definition.apiCallResponses = [
      { url: 'https://svc/check', statusCode: 200, body: { allowed: true } },
      { url: 'https://svc/down', statusCode: 503, body: null },
    ];
    const loaders = createContextLoaders(test);
    expect(await loaders.apiCall({ service: { url: 'https://svc/check' } }, cluster)).toEqual({ allowed: true });
    expect(await loaders.apiCall({ service: { url: 'https://svc/other' } }, cluster)).toBeUndefined();
    expect(() => loaders.apiCall({ service: { url: 'https://svc/down' } }, cluster)).toThrow(
      'HTTP 503 from https://svc/down',
    );
  });

  it('let mutate-existing and generate read targets and resources', async () => {
    const secret = obj('v1', 'Secret', 's', 'x', { a: 'b' });
    const loader = createResourceLoader(loaded({ targetResources: [secret] }));
    expect(await loader.get('v1', 'Secret', 'x', 's')).toBe(secret);
    expect(await loader.list('v1', 'Secret', 'x', { matchLabels: { a: 'b' } })).toEqual([secret]);
    expect(await loader.list('v1', 'Secret', 'x', { matchLabels: { a: 'c' } })).toEqual([]);
  });
});
