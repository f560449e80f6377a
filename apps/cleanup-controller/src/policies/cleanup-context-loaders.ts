/**
 * The context loaders of cleanup runs: `apiCall` to the API server (as this controller's service
 * account) and to services (`service.url`, through the egress guard), both bounded in time and
 * size, as the admission controller's. ConfigMaps and image data are refused by policy validation
 * (as Kyverno refuses them), global context entries too (not served to cleanup runs yet); should
 * one still arrive, its entry fails to load with a message saying so (fail closed: the conditions
 * reading it then fail and nothing is deleted). DeletingPolicies' CEL `image` library reads image
 * configurations from registries as the admission controller's does (pull Secrets of this
 * controller's namespace, the registry egress settings).
 */
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  ClusterContextLoaders,
  ContextApiCallers,
  PullSecretCache,
  RegistryImageData,
  unavailableImageData,
} from '@edict/context';
import type { ContextLoaders } from '@edict/engine';
import { InformerFactory, KubeResources } from '@edict/kube';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

const unsupported = (what: string) => {
  throw new Error(`${what} are not supported in cleanup policies' context (apiCall and variable are)`);
};

@Injectable()
export class CleanupContextLoaders implements OnModuleInit, OnModuleDestroy {
  readonly loaders: ContextLoaders;
  /** apiCall and CEL `http` callers (DeletingPolicies' `http` library goes through them too). */
  readonly callers: ContextApiCallers;
  /** Image configurations for DeletingPolicies' `image.GetMetadata`. */
  readonly images: RegistryImageData;
  private readonly pullSecrets: PullSecretCache;

  constructor(@Inject(CLEANUP_CONFIG) config: CleanupConfig, resources: KubeResources, informers: InformerFactory) {
    this.callers = new ContextApiCallers(config, resources);
    this.pullSecrets = new PullSecretCache(config, informers);
    this.images = new RegistryImageData(config, this.pullSecrets);
    this.loaders = new ClusterContextLoaders(
      { get: () => unsupported('configMap entries') },
      this.callers,
      { read: () => unsupported('global context entries') },
      unavailableImageData,
    );
  }

  onModuleInit(): void {
    this.pullSecrets.start();
  }

  onModuleDestroy(): void {
    this.callers.onModuleDestroy();
    this.images.close();
  }
}
