/**
 * The engine background scans evaluate with, as Kyverno's reports controller builds it: exceptions
 * from the policy cache (PolicyExceptions apply in background as at admission), the ConfigMap's
 * size bounds, context entries through the shared cluster loaders (ConfigMaps read from the API
 * server, apiCalls to it or to services, egress-guarded). GlobalContextEntries and imageRegistry
 * entries are not loaded here: rules using them end in `error` with a message saying so. Each
 * evaluation has a deadline.
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  ClusterContextLoaders,
  ClusterResourceLoader,
  KubeApiCaller,
  ServiceCaller,
  unavailableImageData,
  type ApiCallLimits,
} from '@edict/context';
import { EgressClient } from '@edict/egress';
import {
  deadlineAfter,
  Engine,
  type CompiledPolicy,
  type KubeObject as EngineObject,
  type PolicyResponse,
  type ResourceRequest,
} from '@edict/engine';
import { KubeResources, isNotFound, type KubeObject } from '@edict/kube';
import { AdmissionConfigService, CustomResourceDefinitions, PolicyCache } from '@edict/policy';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';

/** Longest one policy evaluation (with its context loads) may take. */
const EVALUATION_TIMEOUT_MS = 30_000;
/** Longest one ConfigMap or Namespace read may take. */
const READ_TIMEOUT_MS = 5_000;

@Injectable()
export class ScanEngine implements OnModuleDestroy {
  private readonly engine: Engine;
  private readonly egress: EgressClient;

  constructor(
    @Inject(REPORTS_CONFIG) config: ReportsConfig,
    private readonly resources: KubeResources,
    cache: PolicyCache,
    clusterConfig: AdmissionConfigService,
    customResources: CustomResourceDefinitions,
  ) {
    // The cache validates policies as the admission webhook did: with the custom kinds' scopes.
    customResources.feedClusterScopedKinds(cache);
    const limits: ApiCallLimits = {
      timeoutMs: config.apiCallTimeoutMs,
      maxResponseBytes: config.maxApiCallResponseBytes,
    };
    this.egress = new EgressClient({
      blockedCidrs: config.egressBlockedCidrs,
      timeoutMs: limits.timeoutMs,
      maxResponseBytes: limits.maxResponseBytes,
    });
    const kubeCaller = new KubeApiCaller((request) => resources.http.json(request), limits);
    const serviceCaller = new ServiceCaller(this.egress, limits);
    const loaders = new ClusterContextLoaders(
      { get: (namespace, name) => this.read('v1', 'ConfigMap', namespace, name) as Promise<EngineObject | undefined> },
      { kube: (call) => kubeCaller.call(call), service: (call) => serviceCaller.call(call) },
      {
        read: (name) => {
          throw new Error(`global context entry "${name}": global context entries are not loaded by background scans`);
        },
      },
      unavailableImageData,
    );
    this.engine = new Engine({
      exceptions: () => cache.exceptions(),
      loaders,
      resources: new ClusterResourceLoader(resources, {
        namespaceObject: (name) => this.read('v1', 'Namespace', undefined, name),
      }),
      limits: () => clusterConfig.current().limits,
    });
  }

  validate(compiled: CompiledPolicy, request: ResourceRequest): Promise<PolicyResponse> {
    return this.engine.validate(compiled, request, { deadline: deadlineAfter(EVALUATION_TIMEOUT_MS) });
  }

  onModuleDestroy(): void {
    this.egress.close();
  }

  private async read(apiVersion: string, kind: string, namespace: string | undefined, name: string) {
    try {
      const path = await this.resources.path({ apiVersion, kind, namespace, name });
      return await this.resources.http.json<KubeObject>({ path, totalTimeoutMs: READ_TIMEOUT_MS });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
