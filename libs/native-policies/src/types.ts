/** Kubernetes' admissionregistration types and admission attributes, as plain data. */
import type { JsonObject, LabelSelector } from '@edict/foundation';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** admissionregistration/v1 NamedRuleWithOperations. `scope` absent means `*`. */
export interface NamedRuleWithOperations {
  resourceNames?: string[];
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
}

/** admissionregistration/v1 MatchResources. An absent selector matches everything (kube defaults it to `{}`). */
export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  /** Kubernetes defaults it to Equivalent. */
  matchPolicy?: 'Exact' | 'Equivalent';
}

/** What kube-apiserver knows of a request (admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The kind of the object the request carries. */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  /** '' for the main resource. */
  subresource: string;
  /** '' when the server generates the name. */
  name: string;
  /** '' for cluster-scoped objects; a Namespace's own name for Namespace objects, as kube sets it. */
  namespace: string;
  /** null on DELETE. */
  object: JsonObject | null;
  /** null on CREATE and CONNECT. */
  oldObject: JsonObject | null;
  userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions. */
  options?: JsonObject | null;
  /** The AdmissionRequest's uid; kube leaves it empty in CEL's `request`. */
  uid?: string;
}
