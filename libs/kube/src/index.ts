// @edict/kube: Kubernetes client configuration, a resilient informer, API discovery and typed helpers.
// What runs without Nest is also importable alone: @edict/kube/client and @edict/kube/discovery.
export * from './client';
export * from './discovery';
export { KubeModule, type KubeModuleAsyncOptions } from './kube.module';
export { KubeModuleOptions, type KubeConfigSource } from './config/kube-module-options';
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
  CustomResourceDefinitions,
  CustomResourceDefinitionsModule,
  type ClusterScopedKindsSink,
} from './discovery/custom-resource-definitions';
