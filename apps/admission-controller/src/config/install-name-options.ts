/**
 * The libs' name options for an install name: the libs take plain names, the app derives them here
 * (installNames) so every name the controller writes follows the one setting.
 */
import { installNames } from '@edict/config';
import type { WebhookModuleOptions } from '@edict/webhook-config';

/** WebhooksModule: the configurations, the webhooks inside them, the managed-by label, the heartbeat annotation. */
export function webhookNameOptions(installName: string): Partial<WebhookModuleOptions> {
  const names = installNames(installName);
  return {
    resourceValidatingName: names.webhookConfigurations.resourceValidating,
    resourceMutatingName: names.webhookConfigurations.resourceMutating,
    policyValidatingName: names.webhookConfigurations.policyValidating,
    exceptionValidatingName: names.webhookConfigurations.exceptionValidating,
    globalContextValidatingName: names.webhookConfigurations.globalContextValidating,
    validatingWebhookName: names.webhooks.validating,
    mutatingWebhookName: names.webhooks.mutating,
    policyValidatingWebhookName: names.webhooks.policyValidating,
    exceptionValidatingWebhookName: names.webhooks.exceptionValidating,
    globalContextValidatingWebhookName: names.webhooks.globalContextValidating,
    managedByLabel: names.webhookManagedBy.key,
    managedBy: names.webhookManagedBy.value,
    heartbeatAnnotation: names.heartbeatAnnotation,
  };
}
