/**
 * Docker config Secrets for imageRegistry entries, from an informer over the controller's own
 * namespace (Kyverno reads registry Secrets from its namespace): a review reads memory, never the
 * API server. A named Secret that is missing, or not a docker config, is an error naming it.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject } from '@edict/foundation';
import { InformerFactory, InformerService, type Informer } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { dockerConfigFromSecret, RegistryCredentialsError, type DockerConfig } from '@edict/registry';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';

/** What the image data source needs of the cache (a typed fake in specs). */
export interface PullSecretSource {
  dockerConfigs(names: readonly string[]): DockerConfig[];
}

@Injectable()
export class PullSecretCache extends InformerService implements PullSecretSource {
  private readonly informer: Informer<KubeObject>;
  private readonly namespace: string;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    super(informers, settings.watchTimeoutSeconds);
    this.namespace = settings.namespace;
    this.informer = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace: settings.namespace });
  }

  dockerConfigs(names: readonly string[]): DockerConfig[] {
    if (names.length === 0) return [];
    if (!this.hasSynced()) {
      throw new RegistryCredentialsError(`registry Secrets in ${this.namespace}: the Secret cache is not loaded yet`);
    }
    return names.map((name) => {
      const secret = this.informer.get(name, this.namespace);
      if (!secret) throw new RegistryCredentialsError(`registry Secret ${this.namespace}/${name} not found`);
      return dockerConfigFromSecret(secret as unknown as JsonObject);
    });
  }
}
