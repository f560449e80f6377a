/**
 * The engine's context loaders in a controller (the admission controller's webhooks and admin
 * evaluate, the background controller): ConfigMaps from the given source, apiCalls to the API
 * server or to services (bounded, guarded), GlobalContextEntries from their reader, image data from
 * the injected source. A namespaced Policy is kept to its own namespace (policy-scope.ts).
 */
import type {
  APICall,
  ContextLoaders,
  ImageRegistryCredentials,
  JsonObject,
  JsonValue,
  KubeObject,
  LoaderScope,
} from '@edict/engine';
import type { ImageDataSource } from './image-data-source';
import { checkApiPathScope, checkConfigMapScope } from './policy-scope';

/** ConfigMaps by namespace and name (an informer cache in the admission controller). */
export interface ConfigMapSource {
  get(namespace: string, name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
}

/** GlobalContextEntries' data by name (`entry` or `entry.projection`); throws for a missing one. */
export interface GlobalContextReader {
  read(name: string): JsonValue;
}

export interface ApiCallers {
  /** apiCall `urlPath`, through the API server. */
  kube(call: APICall): Promise<JsonValue>;
  /** apiCall `service`, through the egress guard. */
  service(call: APICall): Promise<JsonValue>;
}

export class ClusterContextLoaders implements ContextLoaders {
  constructor(
    private readonly configMaps: ConfigMapSource,
    private readonly callers: ApiCallers,
    private readonly globalContext: GlobalContextReader,
    private readonly images: ImageDataSource,
  ) {}

  configMap(
    namespace: string,
    name: string,
    scope: LoaderScope,
  ): KubeObject | undefined | Promise<KubeObject | undefined> {
    checkConfigMapScope(namespace, name, scope);
    return this.configMaps.get(namespace, name);
  }

  async apiCall(call: APICall, scope: LoaderScope): Promise<JsonValue> {
    return routeApiCall(call, this.callers, scope);
  }

  globalReference(name: string): JsonValue {
    return this.globalContext.read(name);
  }

  imageRegistry(reference: string, credentials: ImageRegistryCredentials | undefined): Promise<JsonObject> {
    return this.images.imageData(reference, credentials);
  }
}

/**
 * One apiCall to where it points: urlPath (kept to the Policy's namespace) or service. Global
 * context entries call it with a cluster scope: they are cluster-scoped objects.
 */
export async function routeApiCall(call: APICall, callers: ApiCallers, scope: LoaderScope): Promise<JsonValue> {
  if (call.urlPath && call.service) throw new Error('apiCall has both urlPath and service; give one');
  if (call.service) return callers.service(call);
  if (!call.urlPath) throw new Error('apiCall needs urlPath or service');
  checkApiPathScope(call.urlPath, scope);
  return callers.kube(call);
}
