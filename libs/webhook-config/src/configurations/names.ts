/** Edict's default names for what it publishes (Kyverno's scheme with `edict` in place of `kyverno`). */
export const MANAGED_BY_LABEL = 'webhook.edict.io/managed-by';
export const MANAGED_BY_VALUE = 'edict';
/** Stamped by the monitor on the resource validating configuration (RFC 3339 time). */
export const HEARTBEAT_ANNOTATION = 'edict.io/last-request-time';

/** Webhook (entry) names; the resource ones get `-fail` / `-ignore` appended. */
export const VALIDATING_WEBHOOK_NAME = 'validate.edict.svc';
export const MUTATING_WEBHOOK_NAME = 'mutate.edict.svc';
export const POLICY_VALIDATING_WEBHOOK_NAME = 'validate-policy.edict.svc';
export const EXCEPTION_VALIDATING_WEBHOOK_NAME = 'validate-policyexception.edict.svc';
/** Kyverno names its generic webhooks after the Service's DNS name. */
export const GLOBAL_CONTEXT_VALIDATING_WEBHOOK_NAME = 'edict-svc.edict.svc';

/** Every name the webhook controller writes: configurations, webhooks inside them, label, annotation. */
export interface WebhookNames {
  readonly resourceValidating: string;
  readonly resourceMutating: string;
  readonly policyValidating: string;
  readonly exceptionValidating: string;
  readonly globalContextValidating: string;
  readonly validatingWebhook: string;
  readonly mutatingWebhook: string;
  readonly policyValidatingWebhook: string;
  readonly exceptionValidatingWebhook: string;
  readonly globalContextValidatingWebhook: string;
  /** Label key and value on every configuration; what carries it is Edict's to delete. */
  readonly managedByLabel: string;
  readonly managedBy: string;
  readonly heartbeatAnnotation: string;
}

export const DEFAULT_WEBHOOK_NAMES: WebhookNames = {
  resourceValidating: 'edict-resource-validating-webhook-cfg',
  resourceMutating: 'edict-resource-mutating-webhook-cfg',
  policyValidating: 'edict-policy-validating-webhook-cfg',
  exceptionValidating: 'edict-exception-validating-webhook-cfg',
  globalContextValidating: 'edict-global-context-validating-webhook-cfg',
  validatingWebhook: VALIDATING_WEBHOOK_NAME,
  mutatingWebhook: MUTATING_WEBHOOK_NAME,
  policyValidatingWebhook: POLICY_VALIDATING_WEBHOOK_NAME,
  exceptionValidatingWebhook: EXCEPTION_VALIDATING_WEBHOOK_NAME,
  globalContextValidatingWebhook: GLOBAL_CONTEXT_VALIDATING_WEBHOOK_NAME,
  managedByLabel: MANAGED_BY_LABEL,
  managedBy: MANAGED_BY_VALUE,
  heartbeatAnnotation: HEARTBEAT_ANNOTATION,
};

/** The paths the admission controller serves the webhooks on. */

export const WEBHOOK_PATHS = {
  validate: '/validate',
  mutate: '/mutate',
  policyValidate: '/policyvalidate',
  exceptionValidate: '/exceptionvalidate',
  globalContextValidate: '/globalcontextvalidate',
} as const;

/** The kube-apiserver's limit for timeoutSeconds; Kyverno caps there too. */
export const MAX_TIMEOUT_SECONDS = 30;
export const DEFAULT_TIMEOUT_SECONDS = 10;
