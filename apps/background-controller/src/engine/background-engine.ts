/**
 * The engine the background controller evaluates rules with: exceptions from the policy cache, the
 * size bounds of the ConfigMap, context entries through the shared cluster loaders (ConfigMaps and
 * namespaces read from the API server: this controller is not on an admission's clock), apiCalls
 * to the API server or to services (egress-guarded), clone sources and mutate targets read live.
 * GlobalContextEntries and imageRegistry entries are not loaded here yet: rules using them fail
 * with a message saying so. Each evaluation has a deadline.
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
import { deadlineAfter, Engine, type KubeObject as EngineObject } from '@edict/engine';
import { KubeResources, isNotFound, type KubeObject } from '@edict/kube';
import { AdmissionConfigService, CustomResourceDefinitions, PolicyCache } from '@edict/policy';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';

/** Longest one rule evaluation (with its context loads and target reads) may take. */
export const EVALUATION_TIMEOUT_MS = 30_000;
/** Longest one ConfigMap or Namespace read may take. */
const READ_TIMEOUT_MS = 5_000;

@Injectable()
export class BackgroundEngine implements OnModuleDestroy {
  private readonly engine: Engine;
  private readonly egress: EgressClient;

  constructor(
    @Inject(BACKGROUND_CONFIG) config: BackgroundConfig,
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
          throw new Error(
            `global context entry "${name}": global context entries are not loaded by the background controller`,
          );
        },
      },
      unavailableImageData,
    );
    this.engine = new Engine({
      exceptions: () => cache.exceptions(),
      loaders,
      resources: new ClusterResourceLoader(resources, { namespaceObject: (name) => this.namespace(name) }),
      limits: () => clusterConfig.current().limits,
    });
  }

  generate: Engine['generate'] = (compiled, request) =>
    this.engine.generate(compiled, request, { deadline: deadlineAfter(EVALUATION_TIMEOUT_MS) });

  /** Matching only (the rules a policy change triggers are probed as validate rules). */
  validate: Engine['validate'] = (compiled, request) =>
    this.engine.validate(compiled, request, { deadline: deadlineAfter(EVALUATION_TIMEOUT_MS) });

  mutate: Engine['mutate'] = (compiled, request) =>
    this.engine.mutate(compiled, request, { deadline: deadlineAfter(EVALUATION_TIMEOUT_MS) });

  /** The labels of a namespace for namespaceSelector (`{}` when it is gone; undefined without a namespace). */
  async namespaceLabels(namespace: string | undefined): Promise<Record<string, string> | undefined> {
    if (!namespace) return undefined;
    return ((await this.namespace(namespace))?.metadata?.labels as Record<string, string> | undefined) ?? {};
  }

  /** A Namespace as it is now; undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined> {
    return this.read('v1', 'Namespace', undefined, name);
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
