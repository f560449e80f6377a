/** Injection tokens of the webhooks module. */
export const WEBHOOK_OPTIONS = Symbol('WEBHOOK_OPTIONS');
export const WEBHOOK_POLICY_SOURCE = Symbol('WEBHOOK_POLICY_SOURCE');
/** The DesiredWebhooks the reconciler publishes. */
export const WEBHOOK_DESIRED = Symbol('WEBHOOK_DESIRED');
export const WEBHOOK_CA_SOURCE = Symbol('WEBHOOK_CA_SOURCE');
export const WEBHOOK_CONFIG_STORE = Symbol('WEBHOOK_CONFIG_STORE');
export const WEBHOOK_DISCOVERY = Symbol('WEBHOOK_DISCOVERY');
export const WEBHOOK_LEADER_GATE = Symbol('WEBHOOK_LEADER_GATE');
/** Reads the Deployment for scale-to-zero (KubeResources fits). */
export const WEBHOOK_KUBE_RESOURCES = Symbol('WEBHOOK_KUBE_RESOURCES');

/** How often the app's scheduler should call `WebhookMonitor.check()` (Kyverno checks about this often). */
export const WEBHOOK_MONITOR_INTERVAL_MS = 30_000;
