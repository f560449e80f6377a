/**
 * The cleanup controller: the controller-app skeleton (Kube access, leader election under its own
 * Lease (only the leader runs cleanup policies and the TTL label, renews the certificate and keeps
 * the webhook configuration), its serving certificate, health and metrics), the cleanup policy
 * validation webhook, and the cleanup runs.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ControllerAppModule } from '@edict/controller-runtime';
import type { CleanupConfig } from './config/cleanup-config';
import { CLEANUP_CONFIG } from './config/tokens';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { CleanupModule } from './policies/cleanup.module';
import { CleanupWebhookModule } from './webhook/cleanup-webhook.module';

@Module({})
export class CleanupControllerModule {
  static forRoot(config: CleanupConfig): DynamicModule {
    return {
      module: CleanupControllerModule,
      imports: [
        ControllerAppModule.forRoot({
          component: 'cleanup-controller',
          config,
          configToken: CLEANUP_CONFIG,
          webhookServer: config,
          features: [CleanupWebhookModule, CleanupModule],
          // Serving starts only once the certificate is there; beyond that, no cache others wait
          // for: ready once it runs (a follower stands by to take over).
          readiness: { useFactory: () => [] },
          metrics: { inject: [CleanupMetrics], useFactory: (metrics: CleanupMetrics) => [metrics.registry] },
        }),
      ],
    };
  }
}
