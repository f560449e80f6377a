/**
 * The reports controller: Kube access, leader election (only the leader writes reports), the
 * policy cache (whose rules decide which results stay and which policies background scans run),
 * the ConfigMap (evaluation bounds), the aggregation, the background scans with their engine, and
 * the health and metrics endpoints.
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
import { AggregationController } from './aggregation/aggregation-controller';
import { BackgroundScanController } from './background/background-scan-controller';
import { ScanEngine } from './background/scan-engine';
import type { ReportsConfig } from './config/reports-config';
import { REPORTS_CONFIG } from './config/tokens';
import { ReportsControllerMetrics } from './metrics/reports-controller-metrics';
import { CustomResourceDefinitionsModule } from '@edict/kube';

@Module({})
export class ReportsControllerModule {
  static forRoot(config: ReportsConfig): DynamicModule {
    return {
      module: ReportsControllerModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        ...clusterModules(config),
        policyModule(config),
        CustomResourceDefinitionsModule.forRoot(config.watchTimeoutSeconds),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: REPORTS_CONFIG, useValue: config },
        { provide: ADMISSION_CONFIG_SOURCE, useValue: config },
        AdmissionConfigService,
        ReportsControllerMetrics,
        AggregationController,
        ScanEngine,
        BackgroundScanController,
        PolicyReadiness,
        {
          provide: READINESS_CHECKS,
          inject: [PolicyReadiness],
          useFactory: (policies: PolicyReadiness) => [() => policies.check()],
        },
        {
          provide: METRIC_REGISTRIES,
          inject: [ReportsControllerMetrics],
          useFactory: (metrics: ReportsControllerMetrics) => [metrics.registry],
        },
      ],
    };
  }
}
