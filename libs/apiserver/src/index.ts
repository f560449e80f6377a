// The in-memory Kubernetes API server's public surface.
export { InMemoryApiServer, type InMemoryApiServerOptions, type StartOptions } from './http/server';
export { FaultInjector, type FailureSpec } from './http/faults';
export { RequestLog, type RecordedRequest, type RequestFilter } from './http/request-log';
export { kubeconfigFor, type KubeconfigOptions } from './kubeconfig';
export { createClusterCa, type ClusterCa, type CertifiedKey } from './tls/cluster-ca';
export { ResourceRegistry, type GroupVersions } from './registry/registry';
export { BUILTIN_TYPES } from './registry/builtin-types';
export { apiVersionOf, type ResourceType } from './registry/resource-type';
export {
  ResourceService,
  type PatchType,
  type WriteOptions,
  type PatchOptions,
  type DeleteOptions,
  type PropagationPolicy,
} from './resources/service';
export { WebhookAdmission, type WebhookSource } from './admission/webhook-admission';
export { type ServiceEndpoints } from './admission/caller';
export {
  DEFAULT_USER,
  type AdmissionAttributes,
  type AdmissionChain,
  type AdmissionOperation,
  type AdmissionRequestContext,
  type UserInfo,
} from './admission/types';
export { GarbageCollector } from './gc/garbage-collector';
export { ControllerManager } from './controllers/controller-manager';
export { type ListOptions } from './resources/list';
export { ObjectStore, type ChangeEvent, type ChangeType } from './store/object-store';
export { ApiError } from './status';
export { applyStrategicMerge } from './patch/strategic-merge';
export { applyMergePatch } from './patch/merge-patch';
export { validateBySchema } from './schema/schema-validation';
