// The in-memory Kubernetes API server's public surface.
export { InMemoryApiServer, type InMemoryApiServerOptions, type StartOptions } from './http/server';
export { FaultInjector, type FailureSpec } from './http/faults';
export { kubeconfigFor, type KubeconfigOptions } from './kubeconfig';
export { ResourceRegistry, type GroupVersions } from './registry/registry';
export { BUILTIN_TYPES } from './registry/builtin-types';
export { apiVersionOf, type ResourceType } from './registry/resource-type';
export {
  ResourceService,
  type PatchType,
  type WriteOptions,
  type PatchOptions,
  type DeleteOptions,
} from './resources/service';
export { type ListOptions } from './resources/list';
export { ObjectStore, type ChangeEvent, type ChangeType } from './store/object-store';
export { ApiError } from './status';
export { applyStrategicMerge } from './patch/strategic-merge';
export { applyMergePatch } from './patch/merge-patch';
