/**
 * The two apiCall callers with a controller's limits: the API server's and the services'
 * (egress-guarded: blocked addresses, one deadline, a body cap, no redirects). Shared by the
 * admission controller and the cleanup controller; Nest's module destroy hook ends the egress
 * client's connections.
 */
import type { CelHttpPort } from '@edict/cel';
import type { APICall } from '@edict/engine';
import type { JsonValue } from '@edict/foundation';
import { EgressClient } from '@edict/egress';
import type { KubeResources } from '@edict/kube';
import type { ApiCallLimits } from './api-call-request';
import { EgressCelHttpPort } from './cel-http-port';
import type { ApiCallers } from './cluster-context-loaders';
import { KubeApiCaller } from './kube-api-caller';
import { ServiceCaller } from './service-caller';

/** The controller settings the callers follow (ControllerBaseConfig has them). */
export interface ApiCallSettings {
  readonly apiCallTimeoutMs: number;
  readonly maxApiCallResponseBytes: number;
  readonly egressBlockedCidrs: readonly string[];
}

export class ContextApiCallers implements ApiCallers {
  private readonly egress: EgressClient;
  private readonly kubeCaller: KubeApiCaller;
  private readonly serviceCaller: ServiceCaller;
  /** `http.*` of Kyverno's CEL policies, through the same egress client and limits as apiCall `service`. */
  readonly celHttp: CelHttpPort;

  constructor(settings: ApiCallSettings, resources: Pick<KubeResources, 'http'>) {
    const limits: ApiCallLimits = {
      timeoutMs: settings.apiCallTimeoutMs,
      maxResponseBytes: settings.maxApiCallResponseBytes,
    };
    this.egress = new EgressClient({
      blockedCidrs: [...settings.egressBlockedCidrs],
      timeoutMs: limits.timeoutMs,
      maxResponseBytes: limits.maxResponseBytes,
    });
    this.kubeCaller = new KubeApiCaller((request) => resources.http.json(request), limits);
    this.serviceCaller = new ServiceCaller(this.egress, limits);
    this.celHttp = new EgressCelHttpPort(this.egress, limits);
  }

  kube(call: APICall, shareMs?: number): Promise<JsonValue> {
    return this.kubeCaller.call(call, shareMs);
  }

  service(call: APICall, shareMs?: number): Promise<JsonValue> {
    return this.serviceCaller.call(call, shareMs);
  }

  onModuleDestroy(): void {
    this.egress.close();
  }
}
