/**
 * The engine's context loaders in a controller (the admission controller's webhooks and admin
 * evaluate, the background controller): ConfigMaps from the given source, apiCalls to the API
 * server or to services (bounded, guarded), GlobalContextEntries from their reader, image data from
 * the injected source. A namespaced Policy is kept to its own namespace (policy-scope.ts). With
 * `fairness`, the loads that wait on the network take fair slots per policy namespace and a share
 * of the review's remaining time (fair-context-loads.ts).
 */
import {
  VerificationCache,
  type APICall,
  type ContextLoaders,
  type ImageRegistryCredentials,
  type ImageVerificationLoader,
  type LoaderScope,
} from '@edict/engine';
import type { JsonObject, JsonValue, KubeObject } from '@edict/foundation';
import type { ImageDataSource } from './image-data-source';
import { within, type FairContextLoads } from './fair-context-loads';
import { checkApiPathScope, checkConfigMapScope } from './policy-scope';

/** ConfigMaps by namespace and name (an informer cache in the admission controller). */
export interface ConfigMapSource {
  get(namespace: string, name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
}

/** GlobalContextEntries' data by name (`entry` or `entry.projection`); throws for a missing one. */
export interface GlobalContextReader {
  read(name: string): JsonValue;
}

/** `shareMs`: the most the call may take (of its review's remaining time); undefined: the callers' own limit. */
export interface ApiCallers {
  /** apiCall `urlPath`, through the API server. */
  kube(call: APICall, shareMs?: number): Promise<JsonValue>;
  /** apiCall `service`, through the egress guard. */
  service(call: APICall, shareMs?: number): Promise<JsonValue>;
}

export class ClusterContextLoaders implements ContextLoaders {
  /** Registry access for verifyImages rules; absent when the image source has no OCI reader. */
  readonly imageVerification?: ImageVerificationLoader;

  constructor(
    private readonly configMaps: ConfigMapSource,
    private readonly callers: ApiCallers,
    private readonly globalContext: GlobalContextReader,
    private readonly images: ImageDataSource,
    private readonly fairness?: FairContextLoads,
    verificationCache: VerificationCache = sharedVerificationCache(),
  ) {
    const oci = images.oci?.bind(images);
    const trustedRoot = images.trustedRoot?.bind(images);
    if (oci)
      this.imageVerification = trustedRoot
        ? { oci, cache: verificationCache, trustedRoot }
        : { oci, cache: verificationCache };
  }

  configMap(
    namespace: string,
    name: string,
    scope: LoaderScope,
  ): KubeObject | undefined | Promise<KubeObject | undefined> {
    checkConfigMapScope(namespace, name, scope);
    return this.configMaps.get(namespace, name);
  }

  async apiCall(call: APICall, scope: LoaderScope): Promise<JsonValue> {
    if (!this.fairness) return routeApiCall(call, this.callers, scope);
    const what = `apiCall ${call.urlPath ?? call.service?.url ?? ''}`;
    return this.fairness.run(scope, what, (shareMs) => routeApiCall(call, this.callers, scope, shareMs));
  }

  globalReference(name: string): JsonValue {
    return this.globalContext.read(name);
  }

  imageRegistry(
    reference: string,
    credentials: ImageRegistryCredentials | undefined,
    scope: LoaderScope,
  ): Promise<JsonObject> {
    if (!this.fairness) return this.images.imageData(reference, credentials);
    const what = `imageRegistry ${reference}`;
    return this.fairness.run(scope, what, (shareMs) =>
      within(this.images.imageData(reference, credentials), shareMs, what),
    );
  }
}

/**
 * One apiCall to where it points: urlPath (kept to the Policy's namespace) or service. Global
 * context entries call it with a cluster scope: they are cluster-scoped objects.
 */
export async function routeApiCall(
  call: APICall,
  callers: ApiCallers,
  scope: LoaderScope,
  shareMs?: number,
): Promise<JsonValue> {
  if (call.urlPath && call.service) throw new Error('apiCall has both urlPath and service; give one');
  if (call.service) return callers.service(call, shareMs);
  if (!call.urlPath) throw new Error('apiCall needs urlPath or service');
  checkApiPathScope(call.urlPath, scope);
  return callers.kube(call, shareMs);
}

let verificationCache: VerificationCache | undefined;

/**
 * One verification cache per process (Kyverno's imageverifycache: 1000 entries, 60 minutes), so the
 * admission, background and reports engines of a process share what they verified.
 */
export function sharedVerificationCache(): VerificationCache {
  verificationCache ??= new VerificationCache(VERIFICATION_CACHE_ENTRIES, VERIFICATION_CACHE_TTL_MS);
  return verificationCache;
}

export const VERIFICATION_CACHE_ENTRIES = 1000;
export const VERIFICATION_CACHE_TTL_MS = 60 * 60 * 1000;
