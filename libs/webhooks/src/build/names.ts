/** Edict's names for what it publishes (Kyverno's scheme with `edict` in place of `kyverno`). */
export const MANAGED_BY_LABEL = 'webhook.edict.io/managed-by';
export const MANAGED_BY_VALUE = 'edict';
/** Stamped by the monitor on the resource validating configuration (RFC 3339 time). */
export const HEARTBEAT_ANNOTATION = 'edict.io/last-request-time';

export interface WebhookNames {
  readonly resourceValidating: string;
  readonly resourceMutating: string;
  readonly policyValidating: string;
  readonly exceptionValidating: string;
}

export const DEFAULT_WEBHOOK_NAMES: WebhookNames = {
  resourceValidating: 'edict-resource-validating-webhook-cfg',
  resourceMutating: 'edict-resource-mutating-webhook-cfg',
  policyValidating: 'edict-policy-validating-webhook-cfg',
  exceptionValidating: 'edict-exception-validating-webhook-cfg',
};

/** Webhook (entry) names and the paths the admission controller serves them on. */
export const VALIDATING_WEBHOOK_NAME = 'validate.edict.svc';
export const MUTATING_WEBHOOK_NAME = 'mutate.edict.svc';
export const POLICY_VALIDATING_WEBHOOK_NAME = 'validate-policy.edict.svc';
export const EXCEPTION_VALIDATING_WEBHOOK_NAME = 'validate-policyexception.edict.svc';

export const WEBHOOK_PATHS = {
  validate: '/validate',
  mutate: '/mutate',
  policyValidate: '/policyvalidate',
  exceptionValidate: '/exceptionvalidate',
} as const;

/** The kube-apiserver's limit for timeoutSeconds; Kyverno caps there too. */
export const MAX_TIMEOUT_SECONDS = 30;
export const DEFAULT_TIMEOUT_SECONDS = 10;
