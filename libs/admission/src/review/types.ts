import type { Operation, UserInfo } from '@edict/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';

/** admission.k8s.io/v1 GroupVersionKind / GroupVersionResource as the API server sends them. */
export interface ReviewGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface ReviewGroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** admission.k8s.io/v1 AdmissionRequest. */
export interface AdmissionRequest {
  uid: string;
  kind: ReviewGroupVersionKind;
  resource: ReviewGroupVersionResource;
  subResource?: string;
  requestKind?: ReviewGroupVersionKind;
  requestResource?: ReviewGroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: UserInfo;
  /** The new object; `null` for DELETE (and CONNECT). */
  object?: KubeObject | null;
  /** The existing object for UPDATE and DELETE. */
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  options?: JsonObject | null;
}

/** The `status` (metav1.Status) of a response that is not allowed. */
export interface ReviewStatus {
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  code?: number;
}

/** admission.k8s.io/v1 AdmissionResponse as the API server expects it. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: ReviewStatus;
  /** Base64 of the JSON Patch document. */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
