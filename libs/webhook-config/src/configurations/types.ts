/**
 * The admissionregistration.k8s.io/v1 shapes the controller writes, as plain JSON (what the API
 * server stores and returns). Only the fields Edict sets are typed; anything else passes through.
 */
import type { LabelSelector } from '@edict/foundation';

export type OperationType = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
export type ScopeType = 'Namespaced' | 'Cluster' | '*';
export type WebhookFailurePolicy = 'Fail' | 'Ignore';
export type SideEffectClass = 'None' | 'NoneOnDryRun';

export interface RuleWithOperations {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: ScopeType;
  operations: OperationType[];
}

export interface WebhookClientConfig {
  /** Base64 of the PEM CA bundle. */
  caBundle?: string;
  service?: { name: string; namespace: string; path: string; port: number };
  url?: string;
}

/** A CEL condition kube-apiserver checks before calling the webhook. */
export interface MatchCondition {
  name: string;
  expression: string;
}

export interface ValidatingWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules: RuleWithOperations[];
  matchConditions?: MatchCondition[];
  failurePolicy: WebhookFailurePolicy;
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  sideEffects: SideEffectClass;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
}

export interface MutatingWebhook extends ValidatingWebhook {
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

export interface WebhookObjectMeta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  uid?: string;
  [key: string]: unknown;
}

export interface ValidatingWebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'ValidatingWebhookConfiguration';
  metadata: WebhookObjectMeta;
  webhooks: ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration';
  metadata: WebhookObjectMeta;
  webhooks: MutatingWebhook[];
}

export type WebhookConfiguration = ValidatingWebhookConfiguration | MutatingWebhookConfiguration;
export type WebhookConfigurationKind = WebhookConfiguration['kind'];

export interface WebhookConfigurations {
  readonly validating: ValidatingWebhookConfiguration[];
  readonly mutating: MutatingWebhookConfiguration[];
}
