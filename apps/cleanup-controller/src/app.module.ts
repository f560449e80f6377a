/**
 * The cleanup controller: Kube access, leader election under its own Lease (only the leader runs
 * cleanup policies and the TTL label), Events, and the health and metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import {
  clusterModules,
  HealthController,
  METRIC_REGISTRIES,
  MetricsController,
  READINESS_CHECKS,
} from '@edict/controller';
import type { CleanupConfig } from './config/cleanup-config';
import { CLEANUP_CONFIG } from './config/tokens';
import { CleanupEvents } from './events/cleanup-events';
import { CleanupMetrics } from './metrics/cleanup-metrics';
import { CleanupContextLoaders } from './policies/cleanup-context-loaders';
import { CleanupPolicyController } from './policies/cleanup-policy-controller';
import { TtlController } from './ttl/ttl-controller';

@Module({})
export class CleanupControllerModule {
  static forRoot(config: CleanupConfig): DynamicModule {
    return {
      module: CleanupControllerModule,
      imports: [TerminusModule.forRoot({ logger: false }), ...clusterModules(config)],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: CLEANUP_CONFIG, useValue: config },
        CleanupMetrics,
        // No cache others wait for: ready once it runs (a follower stands by to take over).
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
      ],
    };
  }
}
