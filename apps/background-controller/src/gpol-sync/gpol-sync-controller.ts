/**
 * Leader-only: GeneratingPolicy synchronize (see GpolSyncRun) over the CEL policy cache, the API
 * server and informers of the downstream types. Each leadership starts from nothing and restores
 * what it needs from the cluster, as Kyverno's background controller does after a restart.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { ClusterEngine, ClusterKyvernoCelPorts } from '@edict/context';
import { DiscoveryResolver, InformerFactory, KubeResources, servedTypes } from '@edict/kube';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { CelPolicyCache, isGeneratingPolicyKind } from '@edict/policy';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { kubeClusterObjects } from '../update-requests/cluster-objects';
import { UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND } from '../update-requests/update-request';
import { ClusterGpolGeneration } from './cluster-gpol-generation';
import { gpolKey } from './gpol-downstream';
import { GpolSyncRun, type GpolSyncRunDeps } from './gpol-sync-run';
import { BackgroundMetrics } from '../metrics/background-metrics';

@Injectable()
@LeaderProvider()
export class GpolSyncController implements LeaderAware {
  private readonly logger = new Logger('GeneratingPolicySync');
  private readonly deps: GpolSyncRunDeps;

  constructor(
    @Inject(BACKGROUND_CONFIG) config: BackgroundConfig,
    private readonly cache: CelPolicyCache,
    resources: KubeResources,
    informers: InformerFactory,
    celPorts: ClusterKyvernoCelPorts,
    engine: ClusterEngine,
    metrics: BackgroundMetrics,
  ) {
    const discovery = new DiscoveryResolver(resources.http);
    this.deps = {
      cluster: kubeClusterObjects(resources),
      generation: new ClusterGpolGeneration(resources, celPorts, cache, engine, metrics),
      policies: () => ({
        compiled: cache.generatingPolicies() as readonly CompiledGeneratingPolicy[],
        installed: new Set(
          cache
            .policyEntries()
            .filter((entry) => isGeneratingPolicyKind(entry.kind))
            .map((entry) => gpolKey(entry)),
        ),
      }),
      onPoliciesChange: (listener) => cache.onChange(listener),
      servedTypes: () => servedTypes(discovery, '*'),
      watch: (type, handlers) => {
        const informer = informers.create({
          ...type,
          watchTimeoutSeconds: config.watchTimeoutSeconds,
        });
        informer.on('add', (object) => handlers.add?.(object));
        informer.on('update', (object) => handlers.update(object));
        informer.on('delete', (object) => handlers.delete(object));
        informer.start();
        // Stopped before it listed: nothing to verify any more.
        informer.waitForSync().then(
          () => handlers.synced?.(),
          () => undefined,
        );
        return () => informer.stop();
      },
      watchTriggers: (type, handlers) => {
        const informer = informers.create({
          ...type,
          metadataOnly: true,
          watchTimeoutSeconds: config.watchTimeoutSeconds,
        });
        informer.on('update', (object) => handlers.update(object));
        informer.on('delete', (object) => handlers.delete(object));
        informer.start();
        return () => informer.stop();
      },
      watchUpdateRequests: (handlers) => {
        const informer = informers.create({
          apiVersion: UPDATE_REQUEST_API_VERSION,
          kind: UPDATE_REQUEST_KIND,
          namespace: config.namespace,
          watchTimeoutSeconds: config.watchTimeoutSeconds,
        });
        informer.on('update', (object) => handlers.update(object));
        informer.on('delete', (object) => handlers.delete(object));
        informer.start();
        return () => informer.stop();
      },
      log: (message) => this.logger.log(message),
      warn: (message) => this.logger.warn(message),
    };
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([this.cache.waitForSync(), stopped]);
    if (signal.aborted) return;
    await new GpolSyncRun(this.deps, signal).run();
  }
}
