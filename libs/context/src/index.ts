// @edict/context: the engine's context and resource loaders over a cluster (configMap, apiCall,
// globalReference, imageRegistry, pull Secrets), shared by the admission, background and reports controllers.
export { ApiCallError, apiCallBody, apiCallMethod, type ApiCallLimits } from './api-call-request';
export { KubeApiCaller, type KubeJsonSender } from './kube-api-caller';
export { ServiceCaller } from './service-caller';
export { apiPathNamespace, checkApiPathScope, checkConfigMapScope, ContextAccessError } from './policy-scope';
export {
  ClusterContextLoaders,
  routeApiCall,
  type ApiCallers,
  type ConfigMapSource,
  type GlobalContextReader,
} from './cluster-context-loaders';
export {
  ClusterResourceLoader,
  MAX_LISTED_OBJECTS,
  RESOURCE_READ_TIMEOUT_MS,
  type NamespaceSource,
} from './cluster-resource-loader';
export {
  IMAGE_DATA_SOURCE,
  ImageDataUnavailableError,
  unavailableImageData,
  type ImageDataSource,
} from './image-data-source';
export { ACCESS_REVIEW_TIMEOUT_MS, KubeAccessReviewer } from './kube-access-reviewer';
export {
  ContextLoadError,
  FairContextLoads,
  LOAD_SHARE_OF_REMAINING,
  type ContextLoadLimits,
} from './fair-context-loads';
export { ContextApiCallers, type ApiCallSettings } from './context-api-callers';
export { CLUSTER_EVALUATION_TIMEOUT_MS, ClusterEngine, type ClusterEngineSources } from './cluster-engine';
export type { ContextSettings, InformerSource } from './context-settings';
export { ConfigMapCache, ConfigMapsNotLoadedError } from './configmap-cache';
export {
  GLOBAL_CONTEXT_ENTRY_API_VERSION,
  GLOBAL_CONTEXT_EVENT_SOURCE,
  GlobalContextEntries,
  type GlobalContextEntriesDependencies,
} from './global-context-entries';
export { globalContextEntryErrors, globalContextEntryRefusal } from './global-context-validation';
export {
  GlobalContextError,
  GlobalContextStore,
  type GlobalContextDependencies,
  type GlobalContextEntryObject,
  type GlobalContextEntrySpec,
  type GroupVersionResourceRef,
  type ResourceFeed,
} from './global-context-store';
export { PullSecretCache, type PullSecretSource } from './pull-secret-cache';
export { RegistryImageData, type RegistrySettings } from './registry-image-data';
export { clusterEngineProvider, ContextModule, type ContextModuleOptions } from './context.module';
export {
  checkTenantWrite,
  isKyvernoKind,
  TenantWriteRefused,
  type WriteTarget,
  type WritingPolicy,
} from './tenant-writes';
export { ClusterKyvernoCelPorts } from './kyverno-cel-ports';
export { ClusterImagePolicyPorts } from './cluster-image-policy-ports';
export { EgressCelHttpPort } from './cel-http-port';
export { CelHttpUrlPolicy, DEFAULT_BLOCKED_HTTP_HOSTS } from './cel-http-url-policy';
export { KubeCelResourcePort, MAX_CEL_LISTED_OBJECTS } from './cel-resource-port';
export { StoreCelGlobalContextPort } from './cel-global-context-port';
export { RegistryCelImageDataPort } from './cel-image-data-port';
export {
  DEFAULT_TUF_SETTINGS,
  TufConfigError,
  TufTrustedRootProvider,
  type TufDependencies,
  type TufSettings,
} from './tuf-trusted-root-provider';
