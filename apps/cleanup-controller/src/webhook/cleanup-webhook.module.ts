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
import { CleanupPolicyValidationController } from './cleanup-policy-validation.controller';
import { CleanupPolicyValidation } from './cleanup-policy-validation.service';
import { TtlLabelValidationController } from './ttl-label-validation.controller';

/** The webhook controller publishing the cleanup controller's one configuration. */
export const cleanupWebhookConfigurationsModule = WebhooksModule.forRootAsync({
  inject: [CLEANUP_CONFIG, TlsMaterial, KubeResources, LeaderService],
  useFactory: (config: CleanupConfig, tls: TlsMaterial, resources: KubeResources, leader: LeaderService) => {
    const { webhookManagedBy } = installNames(config.installName);
    return {
      options: {
        namespace: config.namespace,
        ...(config.deploymentName ? { deploymentName: config.deploymentName } : {}),
        managedByLabel: webhookManagedBy.key,
        managedBy: webhookManagedBy.value,
      },
      desired: new FixedWebhooks(cleanupWebhookConfigurations(config)),
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
