/**
 * The background controller: the controller-app skeleton (Kube access, leader election (only the
 * leader processes UpdateRequests), the policy cache, the ConfigMap, health and metrics) and its
 * UpdateRequests feature.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ContextModule } from '@edict/context';
import { ControllerAppModule, PolicyReadiness } from '@edict/controller-runtime';
import type { BackgroundConfig } from './config/background-config';
import { BACKGROUND_CONFIG } from './config/tokens';
import { BackgroundMetrics } from './metrics/background-metrics';
import { UpdateRequestsModule } from './update-requests/update-requests.module';

@Module({})
export class BackgroundControllerModule {
  static forRoot(config: BackgroundConfig): DynamicModule {
    return {
      module: BackgroundControllerModule,
      imports: [
        ControllerAppModule.forRoot({
          component: 'background-controller',
          config,
          configToken: BACKGROUND_CONFIG,
          policies: true,
          features: [ContextModule.forRoot(config), UpdateRequestsModule],
          readiness: { inject: [PolicyReadiness], useFactory: (policies: PolicyReadiness) => [() => policies.check()] },
          metrics: { inject: [BackgroundMetrics], useFactory: (metrics: BackgroundMetrics) => [metrics.registry] },
        }),
      ],
    };
  }
}
