// @edict/kube: Kubernetes client configuration, a resilient informer and typed helpers.
export { KubeModule, type KubeModuleAsyncOptions } from './kube.module';
export { KubeModuleOptions, type KubeConfigSource } from './config/kube-module-options';
export { loadKubeConfig, type KubeConfigEnvironment } from './config/load-kube-config';
export {
  KUBE_OPTIONS,
  KUBE_CONFIG,
  CORE_V1_API,
  COORDINATION_V1_API,
  ADMISSIONREGISTRATION_V1_API,
  CUSTOM_OBJECTS_API,
  KUBERNETES_OBJECT_API,
} from './tokens';
export { InformerFactory, type InformerSpec } from './informer/informer-factory';
export { InformerService } from './informer/informer-service';
export {
  Informer,
  InformerStoppedError,
  type InformerOptions,
  type InformerStats,
  type InformerHandlers,
  type InformerEventName,
  type InformerLogger,
} from './informer/informer';
export { resourceListWatch, type ListWatchSource, type ResourceListWatchOptions } from './informer/list-watch';
export { ObjectCache, objectKey, type IndexFunction } from './informer/object-cache';
export { Backoff, type BackoffOptions } from './informer/backoff';
export {
  KubeHttpClient,
  KubeTimeoutError,
  KubeResponseTooLargeError,
  type KubeHttpRequest,
  type KubeStreamRequest,
  type KubeStream,
} from './http/kube-http-client';
export {
  KubeResources,
  groupVersionPath,
  withTypeMeta,
  type ResourceRef,
  type ApiResourceInfo,
  type ListPage,
  type ListQuery,
  type WatchQuery,
  type RawWatchEvent,
  type WriteQuery,
} from './http/kube-resources';
export {
  KubeApiError,
  toKubeApiError,
  isNotFound,
  isConflict,
  isGone,
  isAlreadyExists,
  type KubeStatus,
} from './errors/kube-api-error';
export { microTime, parseKubeTime } from './helpers/micro-time';
export { PATCH_CONTENT_TYPES, jsonPointerToken, type PatchType, type JsonPatchOperation } from './helpers/patch-types';
export { patchObject } from './helpers/patch-object';
export * from './events';
export { metadataOnly } from './informer/metadata-only';
