// The in-memory Kubernetes API server's public surface.
export { InMemoryApiServer, type InMemoryApiServerOptions, type StartOptions } from './api-server';
export { ApiClient, type ClusterCache, type UserClient } from './client/api-client';
export { FaultInjector, type FailureSpec } from './http/faults';
export { RequestLog, type RecordedRequest, type RequestFilter } from './http/request-log';
export { kubeconfigFor, type KubeconfigOptions } from './kubeconfig';
export { createClusterCa, type ClusterCa, type CertifiedKey } from './tls/cluster-ca';
export { ResourceRegistry, type GroupVersions } from './registry/registry';
export { BUILTIN_TYPES } from './registry/builtin-types';
export {
  admissionPolicyTypes,
  admissionPolicyVersions,
  type AdmissionPolicyVersions,
  type ApiServerSettings,
} from './registry/admission-policy-types';
export { apiVersionOf, type ResourceType } from './registry/resource-type';
export { ResourceService } from './resources/service';
export {
  type PatchType,
  type WriteOptions,
  type PatchOptions,
  type DeleteOptions,
  type PropagationPolicy,
  FOREGROUND_FINALIZER,
} from './resources/write-options';
export { NO_ADMISSION } from './admission/admission-steps';
export { AuditLog, type AuditedRequest } from './admission/audit-log';
export { WebhookCallLog, type WebhookCall } from './admission/webhook-calls';
export { NATIVE_POLICY_DEADLINE_MS } from './admission/native-policy-admission';
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
export { type ListOptions } from './resources/list';
export { ObjectStore, type ChangeEvent, type ChangeType } from './store/object-store';
export { ownerReferencesOf, withOwnerReferences, withoutOwner } from './store/owner-references';
export { metadataOf, timestamp, type UpdateSubresource } from './resources/prepare';
export { storageKey } from './resources/event-versions';
export { ApiError } from './status';
export { applyStrategicMerge } from './patch/strategic-merge';
export { applyMergePatch } from './patch/merge-patch';
export { validateBySchema } from './schema/schema-validation';
