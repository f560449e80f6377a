/**
 * The context loaders of cleanup runs: `apiCall` to the API server (as this controller's service
 * account), bounded in time and size. Service calls, ConfigMaps, global context entries and image
 * data are refused by policy validation; should one still arrive, its entry fails to load with a
 * message saying so (fail closed: the conditions reading it then fail and nothing is deleted).
 */
import { Inject, Injectable } from '@nestjs/common';
import { ClusterContextLoaders, KubeApiCaller, unavailableImageData } from '@edict/context';
import type { ContextLoaders } from '@edict/engine';
import { KubeResources } from '@edict/kube';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

const unsupported = (what: string) => {
  throw new Error(
    `${what} are not supported in cleanup policies' context (only apiCall to the API server and variable)`,
  );
};

@Injectable()
export class CleanupContextLoaders {
  readonly loaders: ContextLoaders;

  constructor(@Inject(CLEANUP_CONFIG) config: CleanupConfig, resources: KubeResources) {
    const kube = new KubeApiCaller((request) => resources.http.json(request), {
      timeoutMs: config.apiCallTimeoutMs,
      maxResponseBytes: config.maxApiCallResponseBytes,
    });
    this.loaders = new ClusterContextLoaders(
      { get: () => unsupported('configMap entries') },
      { kube: (call) => kube.call(call), service: () => unsupported('service calls') },
      { read: () => unsupported('global context entries') },
      unavailableImageData,
    );
  }
}
