/**
 * The cleanup controller: Kube access, leader election under its own Lease (only the leader runs
 * cleanup policies and the TTL label, renews the certificate and keeps the webhook configuration),
 * its serving certificate, the cleanup policy validation webhook, Events, and the health and
 * metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TerminusModule } from '@nestjs/terminus';
import { TlsMaterial } from '@edict/cert';
import { installNames } from '@edict/config';
import {
  clusterModules,
  HealthController,
  METRIC_REGISTRIES,
  MetricsController,
  READINESS_CHECKS,
  servingCertModule,
  WEBHOOK_SERVER_CONFIG,
  WebhookScheduler,
} from '@edict/controller';
import { KubeResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import { FixedWebhooks, WebhooksModule } from '@edict/webhook-config';
import type { CleanupConfig } from './config/cleanup-config';
import { CLEANUP_CONFIG } from './config/tokens';
import { CleanupEvents } from './events/cleanup-events';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { CleanupContextLoaders } from './policies/cleanup-context-loaders';
import { CleanupPolicyController } from './policies/cleanup-policy-controller';
import { TtlController } from './ttl/ttl-controller';
import { cleanupWebhookConfigurations } from './webhook/cleanup-webhook-configuration';
import { CleanupPolicyValidationController } from './webhook/cleanup-policy-validation.controller';
import { CleanupPolicyValidation } from './webhook/cleanup-policy-validation.service';

@Module({})
export class CleanupControllerModule {
  static forRoot(config: CleanupConfig): DynamicModule {
    const certificates = servingCertModule(config);
    const { webhookManagedBy } = installNames(config.installName);
    return {
      module: CleanupControllerModule,
      imports: [
        ScheduleModule.forRoot(),
        TerminusModule.forRoot({ logger: false }),
        ...clusterModules(config),
        certificates,
        // The admission controller's webhook controller (@edict/webhook-config), publishing this fixed configuration.
        WebhooksModule.forRootAsync({
          imports: [certificates],
          inject: [TlsMaterial, KubeResources, LeaderService],
          useFactory: (tls: TlsMaterial, resources: KubeResources, leader: LeaderService) => ({
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
          }),
        }),
      ],
      controllers: [CleanupPolicyValidationController, HealthController, MetricsController],
      providers: [
        { provide: CLEANUP_CONFIG, useValue: config },
        { provide: WEBHOOK_SERVER_CONFIG, useValue: config },
        WebhookScheduler,
        CleanupMetrics,
        // Serving starts only once the certificate is there; beyond that, no cache others wait
        // for: ready once it runs (a follower stands by to take over).
        { provide: READINESS_CHECKS, useValue: [] },
        {
          provide: METRIC_REGISTRIES,
          inject: [CleanupMetrics],
          useFactory: (metrics: CleanupMetrics) => [metrics.registry],
        },
        CleanupEvents,
        CleanupContextLoaders,
        CleanupPolicyController,
        TtlController,
        CleanupPolicyValidation,
      ],
    };
  }
}
