/**
 * The cleanup policy validation webhook, and its ValidatingWebhookConfiguration kept by the leader
 * through the admission controller's webhook controller (@edict/webhook-config) with this fixed set.
 */
import { Module } from '@nestjs/common';
import { TlsMaterial } from '@edict/cert';
import { installNames } from '@edict/config';
import { KubeResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import { FixedWebhooks, WebhooksModule } from '@edict/webhook-config';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';
import { cleanupWebhookConfigurations } from './cleanup-webhook-configuration';
import { CleanupWebhookSettings } from './cleanup-webhook-settings';
import { CleanupPolicyValidationController } from './cleanup-policy-validation.controller';
import { CleanupPolicyValidation } from './cleanup-policy-validation.service';
import { TtlLabelValidationController } from './ttl-label-validation.controller';

/** The ConfigMap's webhook keys, for the configurations below. */
@Module({ providers: [CleanupWebhookSettings], exports: [CleanupWebhookSettings] })
class CleanupWebhookSettingsModule {}

/** The webhook controller publishing the cleanup controller's configurations (the ConfigMap's webhook keys on them). */
export const cleanupWebhookConfigurationsModule = WebhooksModule.forRootAsync({
  inject: [CLEANUP_CONFIG, TlsMaterial, KubeResources, LeaderService, CleanupWebhookSettings],
  imports: [CleanupWebhookSettingsModule],
  useFactory: (
    config: CleanupConfig,
    tls: TlsMaterial,
    resources: KubeResources,
    leader: LeaderService,
    settings: CleanupWebhookSettings,
  ) => {
    const { webhookManagedBy } = installNames(config.installName);
    return {
      options: {
        namespace: config.namespace,
        ...(config.deploymentName ? { deploymentName: config.deploymentName } : {}),
        managedByLabel: webhookManagedBy.key,
        managedBy: webhookManagedBy.value,
      },
      desired: new FixedWebhooks(cleanupWebhookConfigurations(config), settings),
      caBundle: tls,
      resources,
      leaderGate: leaderGateOf(leader),
    };
  },
});

@Module({
  imports: [cleanupWebhookConfigurationsModule],
  controllers: [CleanupPolicyValidationController, TtlLabelValidationController],
  providers: [CleanupPolicyValidation],
  // The controller-app skeleton's WebhookScheduler monitors the published configuration.
  exports: [cleanupWebhookConfigurationsModule],
})
export class CleanupWebhookModule {}
