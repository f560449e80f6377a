import { type APICall, type ContextLoaders, type ResourceLoader } from '@edict/engine';
import { matchesLabelSelector, type JsonValue, type KubeObject, type LabelSelector } from '@edict/foundation';
import { FakeApiServer } from './fake-api-server';
import { globalContextValue } from './global-context';
import { groupVersion } from './request-builder';
import type { ApiCallMock, LoadedTest } from './types';

/*
 * What a test's context entries may load, and nothing more: without a cluster Kyverno's CLI loads no
 * configMap, apiCall, imageRegistry or globalReference data unless the test mocks it. ConfigMaps and
 * Kubernetes API paths are served only when the test gives clusterResources (as Kyverno only then
 * builds its fake cluster), service calls only from apiCallResponses, global references only from
 * globalContextEntries.
 */
export function createContextLoaders(test: LoadedTest): ContextLoaders {
  const hasCluster = test.definition.clusterResources.length > 0;
  const objects = clusterObjects(test);
  const api = hasCluster ? new FakeApiServer(objects, test.crdPlurals) : undefined;
  const mocks = test.definition.apiCallResponses;
  return {
    configMap: (namespace, name) =>
      hasCluster
        ? objects.find(
            (o) =>
              o.kind === 'ConfigMap' && o.metadata.name === name && (o.metadata.namespace ?? 'default') === namespace,
          )
        : undefined,
    apiCall: (call) => answerApiCall(call, mocks, api),
    globalReference: (name) => globalContextValue(test.globalContext, name),
    imageRegistry: () => undefined,
  };
}

/** The objects mutate-existing targets and generate clone sources are read from. */
export function createResourceLoader(test: LoadedTest): ResourceLoader {
  const objects = clusterObjects(test);
  const same = (object: KubeObject, apiVersion: string, kind: string) =>
    object.kind === kind &&
    (apiVersion === '' || groupVersion(object.apiVersion).group === groupVersion(apiVersion).group);
  return {
    get: (apiVersion, kind, namespace, name) =>
      objects.find(
        (o) =>
          same(o, apiVersion, kind) &&
          o.metadata.name === name &&
          (namespace === undefined || namespace === '' || o.metadata.namespace === namespace),
      ),
    list: (apiVersion, kind, namespace, labelSelector) =>
      objects.filter(
        (o) =>
          same(o, apiVersion, kind) &&
          (!namespace || o.metadata.namespace === namespace) &&
          matchesLabelSelector((labelSelector ?? {}) as LabelSelector, o.metadata.labels),
      ),
    // Without discovery, a kind's scope shows in its objects (unknown when the test holds none).
    namespaced: (apiVersion, kind) => {
      const object = objects.find((o) => same(o, apiVersion, kind));
      return object && object.metadata.namespace !== undefined;
    },
  };
}

/** Kyverno's fake cluster holds the test's resources, target resources, cluster resources and clone sources. */
function clusterObjects(test: LoadedTest): KubeObject[] {
  return [...test.resources, ...test.targetResources, ...test.clusterResources, ...test.cloneSources];
}

function answerApiCall(
  call: APICall,
  mocks: readonly ApiCallMock[],
  api: FakeApiServer | undefined,
): JsonValue | undefined {
  const url = call.service?.url ?? call.urlPath;
  if (url === undefined) return undefined;
  const method = (call.method ?? 'GET').toUpperCase();
  const mock = mocks.find((m) => m.url === url && (m.method === undefined || m.method === method));
  if (mock) {
    if (mock.statusCode < 200 || mock.statusCode >= 300) throw new Error(`HTTP ${mock.statusCode} from ${url}`);
    return mock.body;
  }
  if (call.service || !api || method !== 'GET') return undefined;
  return api.get(url);
}
