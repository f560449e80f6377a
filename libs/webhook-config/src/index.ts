// @edict/webhook-config: publishes the webhook configurations (Validating/MutatingWebhookConfigurations from the policies).
export { WebhooksModule, type WebhooksModuleConfig, type WebhooksModuleAsyncConfig } from './webhooks.module';
export {
  WebhookModuleOptions,
  WebhookOptionsError,
  resolveWebhookOptions,
  type ResolvedWebhookOptions,
} from './webhooks.options';
export {
  WEBHOOK_OPTIONS,
  WEBHOOK_POLICY_SOURCE,
  WEBHOOK_CA_SOURCE,
  WEBHOOK_DESIRED,
  WEBHOOK_CONFIG_STORE,
  WEBHOOK_DISCOVERY,
  WEBHOOK_LEADER_GATE,
  WEBHOOK_KUBE_RESOURCES,
  WEBHOOK_MONITOR_INTERVAL_MS,
} from './webhooks.constants';
export {
  buildWebhookConfigurations,
  kindSelectorsOf,
  type WebhookBuildOptions,
  type WebhookBuildResult,
  type WebhookEndpoint,
} from './configurations/build-webhook-configurations';
export {
  clientConfig,
  fixedValidatingWebhook,
  validatingConfiguration,
  type FixedWebhookRule,
} from './configurations/build-webhook-configurations';
export { unionConfiguration } from './configurations/union';
export {
  validatingPolicyWebhooks,
  readsNamespaceObject,
  VALIDATING_POLICY_PATH,
  MAX_MATCH_CONDITIONS,
  type ValidatingPolicyWebhookSource,
  type ValidatingPolicyWebhookOptions,
} from './configurations/validating-policy-webhooks';
export {
  mutatingPolicyWebhooks,
  MUTATING_POLICY_PATH,
  MUTATING_POLICY_PREFIX,
  type MutatingPolicyWebhookSource,
} from './configurations/mutating-policy-webhooks';
export {
  generatingPolicyWebhooks,
  GENERATING_POLICY_PATH,
  type GeneratingPolicyWebhookSource,
} from './configurations/generating-policy-webhooks';
export { RuleSet, ALL_OPERATIONS, type RuleEntry } from './configurations/rule-set';
export {
  kindOperationsOf,
  policyTakesPart,
  type KindOperations,
  type WebhookFamily,
} from './configurations/policy-kinds';
export * from './configurations/names';
export type * from './configurations/types';
export { covers } from './reconcile/covers';
export { KubeWebhookConfigStore } from './reconcile/kube-webhook-store';
export {
  type CaBundleSource,
  type CelPolicySource,
  type DesiredWebhooks,
  type DesiredWebhookSet,
  type PolicySource,
  type ServedTypesSource,
  type WebhookConfigStore,
  type WebhookSettings,
  type WebhookSettingsSource,
} from './reconcile/ports';
export { PolicyWebhooks } from './reconcile/policy-webhooks';
export { FixedWebhooks } from './reconcile/fixed-webhooks';
export { WebhookReconciler, type ReconcileOutcome } from './reconcile/webhook-reconciler';
export { WebhookMonitor, type MonitorOutcome } from './reconcile/webhook-monitor';
export { WebhookRemoval, type DeploymentReader } from './reconcile/webhook-removal';
