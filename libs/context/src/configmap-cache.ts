/**
 * ConfigMaps for `configMap` context entries, from an informer over every namespace: a review
 * reads memory, never the API server. Before the first list completes a lookup fails (rather than
 * answering "not found", which a rule could take for a real absence).
 */
import type { KubeObject } from '@edict/foundation';
import type { Informer } from '@edict/kube';
import type { ConfigMapSource } from './cluster-context-loaders';
import type { ContextSettings, InformerSource } from './context-settings';

export class ConfigMapsNotLoadedError extends Error {
  override readonly name = 'ConfigMapsNotLoadedError';
}

export class ConfigMapCache implements ConfigMapSource {
  private readonly informer: Informer<KubeObject>;

  constructor(settings: Pick<ContextSettings, 'watchTimeoutSeconds'>, informers: InformerSource) {
    this.informer = informers.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
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

  get(namespace: string, name: string): KubeObject | undefined {
    if (!this.hasSynced()) {
      throw new ConfigMapsNotLoadedError(`configMap ${namespace}/${name}: the ConfigMap cache is not loaded yet`);
    }
    return this.informer.get(name, namespace);
  }
}
