/** What the admission chain knows about one request (kube's `admission.Attributes`). */
import type { JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** `authentication.k8s.io/v1` UserInfo as the AdmissionReview carries it. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The user requests act as unless they impersonate someone (kubeadm's admin identity). */
export const DEFAULT_USER: UserInfo = {
  username: 'kubernetes-admin',
  groups: ['kubeadm:cluster-admins', 'system:authenticated'],
};

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly type: ResourceType;
  /** '' for the main resource, `status` for `/status`. */
  readonly subresource: string;
  /** The kind of `object` when a subresource has its own (`autoscaling/v1` Scale); the type's kind otherwise. */
  readonly kind?: GroupVersionKind;
  /** '' when not known yet (a create with generateName). */
  readonly name: string;
  /** '' for cluster-scoped objects; a Namespace's own name for Namespace objects (as kube does). */
  readonly namespace: string;
  readonly object?: JsonObject;
  readonly oldObject?: JsonObject;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1). */
  readonly options: JsonObject;
  readonly userInfo: UserInfo;
}

/** Per-request admission context handed down from the HTTP layer. */
export interface AdmissionRequestContext {
  readonly userInfo: UserInfo;
  /** The request's User-Agent: writes that name no fieldManager are recorded under its product. */
  readonly userAgent?: string;
  /** Webhook warnings end up here (the HTTP layer sends them as `Warning` headers). */
  readonly warnings: string[];
}

/** The admission chain ResourceService calls around its writes. */
export interface AdmissionChain {
  /** Runs mutating webhooks in order; resolves with the (possibly patched) object. */
  mutate(attributes: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined>;
  /** Runs validating webhooks; rejects with an ApiError on denial or a failing call. */
  validate(attributes: AdmissionAttributes, warnings: string[]): Promise<void>;
}
