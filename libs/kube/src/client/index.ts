// @edict/kube/client: the Nest-free part of @edict/kube (kubeconfig loading, the REST client,
// informers, errors, events), for code that runs without Nest, such as the CLI. API discovery has
// its own Nest-free entry, @edict/kube/discovery.
export { loadKubeConfig, type KubeConfigEnvironment } from '../config/load-kube-config';
export {
  Informer,
  InformerStoppedError,
  type InformerOptions,
  type InformerStats,
  type InformerHandlers,
  type InformerEventName,
  type InformerLogger,
} from '../informer/informer';
export { resourceListWatch, type ListWatchSource, type ResourceListWatchOptions } from '../informer/list-watch';
export { ObjectCache, objectKey, type IndexFunction } from '../informer/object-cache';
export { Backoff, type BackoffOptions } from '../informer/backoff';
export { metadataOnly } from '../informer/metadata-only';
export {
  KubeHttpClient,
  KubeTimeoutError,
  KubeResponseTooLargeError,
  type KubeHttpRequest,
  type KubeStreamRequest,
  type KubeStream,
} from '../http/kube-http-client';
export {
  KubeResources,
  withTypeMeta,
  type ResourceRef,
  type ApiResourceInfo,
  type ListPage,
  type ListQuery,
  type WatchQuery,
  type RawWatchEvent,
  type WriteQuery,
} from '../http/kube-resources';
export { ReadBudget } from '../http/read-budget';
export {
  GroupVersionResources,
  DiscoveryBudgetSpent,
  groupVersionPath,
  apiVersionOf,
  type ServedResource,
  type GroupVersionReader,
  type GroupVersionResourcesOptions,
} from '../discovery/group-version-resources';
export {
  KubeApiError,
  toKubeApiError,
  isNotFound,
  isConflict,
  isGone,
  isForbidden,
  isAlreadyExists,
  type KubeStatus,
} from '../errors/kube-api-error';
export { isTransientError, withRetry } from '../errors/transient-errors';
export { microTime, parseKubeTime } from '../helpers/micro-time';
export { PATCH_CONTENT_TYPES, jsonPointerToken, type PatchType, type JsonPatchOperation } from '../helpers/patch-types';
export { patchObject } from '../helpers/patch-object';
export * from '../events';
