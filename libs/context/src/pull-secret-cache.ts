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
  /**
   * Changes whenever a Secret of the namespace is added, changed or removed: what was read at another
   * revision may be stale. Absent: nothing read may be remembered.
   */
  revision?(): number;
}

export class PullSecretCache implements PullSecretSource {
  private readonly informer: Informer<KubeObject>;
  private readonly namespace: string;
  private changes = 0;

  constructor(settings: Pick<ContextSettings, 'namespace' | 'watchTimeoutSeconds'>, informers: InformerSource) {
    this.namespace = settings.namespace;
    this.informer = informers.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: settings.namespace,
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
    // Counted after the informer's store has the change, so nothing older is read at a newer revision.
    const changed = (): void => {
      this.changes++;
    };
    this.informer.on('add', changed);
    this.informer.on('update', changed);
    this.informer.on('delete', changed);
  }

  revision(): number {
    return this.changes;
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
