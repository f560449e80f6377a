/**
 * The reports controller: the controller-app skeleton (Kube access, leader election (only the
 * leader writes reports), the policy cache (whose rules decide which results stay and which
 * policies background scans run), the ConfigMap (evaluation bounds), health and metrics), the
 * aggregation of reports and the background scans.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ContextModule } from '@edict/context';
import { ControllerAppModule, PolicyReadiness } from '@edict/controller-runtime';
import { AggregationModule } from './aggregation/aggregation.module';
import { BackgroundScansModule } from './background-scans/background-scans.module';
import type { ReportsConfig } from './config/reports-config';
import { REPORTS_CONFIG } from './config/tokens';
import { ReportsControllerMetrics } from './metrics/reports-controller-metrics';
import { ReportsControllerMetricsModule } from './metrics/reports-controller-metrics.module';

@Module({})
export class ReportsControllerModule {
  static forRoot(config: ReportsConfig): DynamicModule {
    return {
      module: ReportsControllerModule,
      imports: [
        ControllerAppModule.forRoot({
          component: 'reports-controller',
          config,
          configToken: REPORTS_CONFIG,
          policies: true,
          features: [
            ContextModule.forRoot(config),
            ReportsControllerMetricsModule,
            AggregationModule,
            BackgroundScansModule,
          ],
          readiness: { inject: [PolicyReadiness], useFactory: (policies: PolicyReadiness) => [() => policies.check()] },
          metrics: {
            inject: [ReportsControllerMetrics],
            useFactory: (metrics: ReportsControllerMetrics) => [metrics.registry],
          },
        }),
      ],
    };
  }
}
