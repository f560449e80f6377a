/**
 * The engine's context loaders in the controller, shared by the webhooks and the admin evaluate
 * endpoint (both use InstrumentedEngine's engine): ConfigMaps from the informer cache, apiCalls to
 * the API server or to services (bounded, guarded), GlobalContextEntries from their store, image
 * data from the injected source. A namespaced Policy is kept to its own namespace
 * (policy-scope.ts).
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
import type { ConfigMapSource } from './configmap-cache';
import type { GlobalContextStore } from './global-context-store';
import type { ImageDataSource } from './image-data-source';
import { checkApiPathScope, checkConfigMapScope } from './policy-scope';

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
    private readonly globalContext: Pick<GlobalContextStore, 'read'>,
    private readonly images: ImageDataSource,
  ) {}

  configMap(namespace: string, name: string, scope: LoaderScope): KubeObject | undefined {
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
