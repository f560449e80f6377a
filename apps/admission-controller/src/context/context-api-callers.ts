/** The two apiCall callers with the controller's limits: the API server's and the services' (egress-guarded). */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { APICall, JsonValue } from '@edict/engine';
import { EgressClient } from '@edict/egress';
import { KubeResources } from '@edict/kube';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { KubeApiCaller, ServiceCaller, type ApiCallers, type ApiCallLimits } from '@edict/context';

@Injectable()
export class ContextApiCallers implements ApiCallers, OnModuleDestroy {
  private readonly egress: EgressClient;
  private readonly kubeCaller: KubeApiCaller;
  private readonly serviceCaller: ServiceCaller;

  constructor(@Inject(CONTROLLER_CONFIG) config: ControllerConfig, resources: KubeResources) {
    const limits: ApiCallLimits = {
      timeoutMs: config.apiCallTimeoutMs,
      maxResponseBytes: config.maxApiCallResponseBytes,
    };
    this.egress = new EgressClient({
      blockedCidrs: config.egressBlockedCidrs,
      timeoutMs: limits.timeoutMs,
      maxResponseBytes: limits.maxResponseBytes,
    });
    this.kubeCaller = new KubeApiCaller((request) => resources.http.json(request), limits);
    this.serviceCaller = new ServiceCaller(this.egress, limits);
  }

  kube(call: APICall): Promise<JsonValue> {
    return this.kubeCaller.call(call);
  }

  service(call: APICall): Promise<JsonValue> {
    return this.serviceCaller.call(call);
  }

  onModuleDestroy(): void {
    this.egress.close();
  }
}
