/**
 * Docker config Secrets for imageRegistry entries, from an informer over the controller's own
 * namespace (Kyverno reads registry Secrets from its namespace): a review reads memory, never the
 * API server. A named Secret that is missing, or not a docker config, is an error naming it.
 */
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { Informer } from '@edict/kube';
import { dockerConfigFromSecret, RegistryCredentialsError, type DockerConfig } from '@edict/registry';
import type { ContextSettings, InformerSource } from './context-settings';

/** What the image data source needs of the cache (a typed fake in specs). */
export interface PullSecretSource {
  dockerConfigs(names: readonly string[]): DockerConfig[];
}

export class PullSecretCache implements PullSecretSource {
  private readonly informer: Informer<KubeObject>;
  private readonly namespace: string;

  constructor(settings: Pick<ContextSettings, 'namespace' | 'watchTimeoutSeconds'>, informers: InformerSource) {
    this.namespace = settings.namespace;
    this.informer = informers.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: settings.namespace,
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
  }

  /** Starts the informer (its factory stops it). */
  start(): void {
    this.informer.start();
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
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
