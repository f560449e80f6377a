/**
 * The context loaders of cleanup runs: `apiCall` to the API server (as this controller's service
 * account) and to services (`service.url`, through the egress guard), both bounded in time and
 * size, as the admission controller's. ConfigMaps and image data are refused by policy validation
 * (as Kyverno refuses them), global context entries too (not served to cleanup runs yet); should
 * one still arrive, its entry fails to load with a message saying so (fail closed: the conditions
 * reading it then fail and nothing is deleted).
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ClusterContextLoaders, ContextApiCallers, unavailableImageData } from '@edict/context';
import type { ContextLoaders } from '@edict/engine';
import { KubeResources } from '@edict/kube';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

const unsupported = (what: string) => {
  throw new Error(`${what} are not supported in cleanup policies' context (apiCall and variable are)`);
};

@Injectable()
export class CleanupContextLoaders implements OnModuleDestroy {
  readonly loaders: ContextLoaders;
  /** apiCall and CEL `http` callers (DeletingPolicies' `http` library goes through them too). */
  readonly callers: ContextApiCallers;

  constructor(@Inject(CLEANUP_CONFIG) config: CleanupConfig, resources: KubeResources) {
    this.callers = new ContextApiCallers(config, resources);
    this.loaders = new ClusterContextLoaders(
      { get: () => unsupported('configMap entries') },
      this.callers,
      { read: () => unsupported('global context entries') },
      unavailableImageData,
    );
  }

  onModuleDestroy(): void {
    this.callers.onModuleDestroy();
  }
}
