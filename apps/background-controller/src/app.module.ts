/**
 * The background controller: Kube access, leader election (only the leader processes
 * UpdateRequests), the policy cache, the ConfigMap, the engine with the cluster's loaders, Events,
 * and the health and metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import {
  clusterModules,
  HealthController,
  METRIC_REGISTRIES,
  MetricsController,
  policyModule,
  PolicyReadiness,
  READINESS_CHECKS,
} from '@edict/controller';
import { ADMISSION_CONFIG_SOURCE, AdmissionConfigService } from '@edict/policy';
import type { BackgroundConfig } from './config/background-config';
import { BACKGROUND_CONFIG } from './config/tokens';
import { BackgroundEngine } from './engine/background-engine';
import { BackgroundEventRecorders } from './events/background-event-recorders';
import { BackgroundMetrics } from './metrics/background-metrics';
import { PolicyTriggerController } from './policy-triggers/policy-trigger-controller';
import { UpdateRequestController } from './update-requests/update-request-controller';
import { CustomResourceDefinitionsModule } from '@edict/kube';

@Module({})
export class BackgroundControllerModule {
  static forRoot(config: BackgroundConfig): DynamicModule {
    return {
      module: BackgroundControllerModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        ...clusterModules(config),
        policyModule(config),
        CustomResourceDefinitionsModule.forRoot(config.watchTimeoutSeconds),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: BACKGROUND_CONFIG, useValue: config },
        { provide: ADMISSION_CONFIG_SOURCE, useValue: config },
        AdmissionConfigService,
        BackgroundEngine,
        BackgroundEventRecorders,
        BackgroundMetrics,
        PolicyReadiness,
        {
          provide: READINESS_CHECKS,
          inject: [PolicyReadiness],
          useFactory: (policies: PolicyReadiness) => [() => policies.check()],
        },
        {
          provide: METRIC_REGISTRIES,
          inject: [BackgroundMetrics],
          useFactory: (metrics: BackgroundMetrics) => [metrics.registry],
        },
        UpdateRequestController,
        PolicyTriggerController,
      ],
    };
  }
}
