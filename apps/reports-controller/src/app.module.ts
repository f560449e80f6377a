/**
 * The reports controller: Kube access, leader election (only the leader writes reports), the
 * policy cache (whose rules decide which results stay), the aggregation, and the health and
 * metrics endpoints.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { KubeConfig } from '@kubernetes/client-node';
import { KUBE_CONFIG, KubeModule } from '@edict/kube';
import { LeaderModule } from '@edict/leader';
import { PolicyModule } from '@edict/policy';
import { AggregationController } from './aggregation/aggregation-controller';
import type { ReportsConfig } from './config/reports-config';
import { REPORTS_CONFIG } from './config/tokens';
import { HealthController } from './health/health.controller';
import { MetricsController } from './metrics/metrics.controller';
import { ReportsControllerMetrics } from './metrics/reports-controller-metrics';

@Module({})
export class ReportsControllerModule {
  static forRoot(config: ReportsConfig): DynamicModule {
    return {
      module: ReportsControllerModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        KubeModule.forRoot({
          source: config.kubeSource,
          ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
          ...(config.kubeconfigPath ? { kubeconfigPath: config.kubeconfigPath } : {}),
        }),
        LeaderModule.forRootAsync({
          inject: [KUBE_CONFIG],
          useFactory: (kubeConfig: KubeConfig) => ({
            kubeConfig,
            leaseName: config.leaseName,
            leaseNamespace: config.namespace,
            leaseDurationMs: config.leaseDurationMs,
            renewDeadlineMs: config.renewDeadlineMs,
            retryPeriodMs: config.retryPeriodMs,
            ...(config.leaseIdentity ? { identity: config.leaseIdentity } : {}),
          }),
        }),
        PolicyModule.forRoot({
          ...(config.exceptionNamespaces.length > 0 ? { exceptionNamespaces: config.exceptionNamespaces } : {}),
          watchTimeoutSeconds: config.watchTimeoutSeconds,
        }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [{ provide: REPORTS_CONFIG, useValue: config }, ReportsControllerMetrics, AggregationController],
    };
  }
}
