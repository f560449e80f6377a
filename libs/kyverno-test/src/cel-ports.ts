import type {
  CelGlobalContextPort,
  CelHttpPort,
  CelImageDataPort,
  CelResourcePort,
  CelResourceTarget,
  KyvernoCelPorts,
} from '@edict/cel';
import { cloneJson, matchesLabelSelector, type JsonObject, type KubeObject } from '@edict/foundation';
import { resourceOf } from './cel-resource';
import type { ImageDataMock } from './context-file';
import { globalContextValue } from './global-context';
import type { LoadedTest } from './types';

/**
 * The ports of Kyverno's CEL libraries as Kyverno's CLI fakes them for a test, and nothing more:
 * `resource` reads the Context file's objects (and, when the test gives clusterResources, the fake
 * cluster's: resources, targets, params and cluster resources), `http` answers only the test's
 * apiCallResponses, `globalContext` only its globalContextEntries, image data only the Context
 * file's images. Anything else fails the calling expression: the CLI never reaches a network.
 * `sources`: more objects `resource` reads (a GeneratingPolicy's clone sources, `cloneSourceResource`).
 */
export function celPortsFor(test: LoadedTest, sources: readonly KubeObject[] = []): KyvernoCelPorts {
  return {
    http: httpPort(test),
    resources: resourcePort(test, sources),
    globalContext: globalContextPort(test),
    imageData: imageDataPort(test.context.images),
  };
}

function httpPort(test: LoadedTest): CelHttpPort {
  return {
    send: (request) => {
      const mock = test.definition.apiCallResponses.find(
        (candidate) =>
          candidate.url === request.url && (candidate.method === undefined || candidate.method === request.method),
      );
      if (!mock) {
        throw new Error(
          `no apiCallResponses entry for ${request.method} ${request.url}: the CLI answers HTTP calls from the test's mocks only`,
        );
      }
      // Kyverno's CLI hands a mock's response back unchanged (statusCode and body).
      return { mocked: { statusCode: mock.statusCode, body: mock.body } };
    },
  };
}

function resourcePort(test: LoadedTest, sources: readonly KubeObject[]): CelResourcePort {
  const store: KubeObject[] = [...test.context.resources, ...sources];
  if (test.definition.clusterResources.length > 0) {
    store.push(...test.resources, ...test.targetResources, ...test.params, ...test.clusterResources);
  }
  const served = (object: KubeObject, target: CelResourceTarget) =>
    object.apiVersion === target.apiVersion && resourceOf(object, test.crdPlurals).resource === target.resource;
  return {
    get: (target) =>
      store.find(
        (object) =>
          served(object, target) &&
          object.metadata.name === target.name &&
          (object.metadata.namespace ?? '') === target.namespace,
      ) ?? null,
    list: (target) => ({
      apiVersion: target.apiVersion,
      kind: 'List',
      metadata: {},
      items: store.filter(
        (object) =>
          served(object, target) &&
          (target.namespace === '' || object.metadata.namespace === target.namespace) &&
          matchesLabelSelector({ matchLabels: { ...target.labels } }, object.metadata.labels),
      ),
    }),
    create: (target, object) => {
      const created = cloneJson(object) as KubeObject;
      created.metadata = { ...created.metadata, ...(target.namespace ? { namespace: target.namespace } : {}) };
      store.push(created);
      return created;
    },
    toGVR: (apiVersion, kind) => resourceOf({ apiVersion, kind }, test.crdPlurals),
  };
}

function globalContextPort(test: LoadedTest): CelGlobalContextPort {
  return { get: (name, projection) => globalContextValue(test.globalContext, name, projection) };
}

function imageDataPort(images: readonly ImageDataMock[]): CelImageDataPort {
  return {
    get: (reference) => {
      const image = images.find((candidate) => candidate.image === reference || candidate.resolvedImage === reference);
      if (!image) {
        throw new Error(`no image data for ${reference} in the test's context file: the CLI reads no image registry`);
      }
      return imageData(image);
    },
  };
}

function imageData(image: ImageDataMock): JsonObject {
  const identifier = image.digest ?? image.tag ?? '';
  return {
    image: image.image,
    resolvedImage: image.resolvedImage,
    registry: image.registry,
    repository: image.repository,
    identifier,
    tag: image.tag ?? '',
    digest: image.digest ?? '',
    ...(image.imageIndex ? { imageIndex: image.imageIndex } : {}),
    ...(image.manifest ? { manifest: image.manifest } : {}),
    ...(image.config ? { config: image.config } : {}),
  };
}
