/**
 * ConfigMaps for `configMap` context entries, from an informer over every namespace: a review
 * reads memory, never the API server. Before the first list completes a lookup fails (rather than
 * answering "not found", which a rule could take for a real absence).
 */
import { Inject, Injectable } from '@nestjs/common';
import type {} from '@edict/foundation';
import type { ConfigMapSource } from '@edict/context';
import { InformerFactory, InformerService, type Informer } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';

export class ConfigMapsNotLoadedError extends Error {
  override readonly name = 'ConfigMapsNotLoadedError';
}

@Injectable()
export class ConfigMapCache extends InformerService implements ConfigMapSource {
  private readonly informer: Informer<KubeObject>;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    super(informers, settings.watchTimeoutSeconds);
    this.informer = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' });
  }

  get(namespace: string, name: string): KubeObject | undefined {
    if (!this.hasSynced()) {
      throw new ConfigMapsNotLoadedError(`configMap ${namespace}/${name}: the ConfigMap cache is not loaded yet`);
    }
    return this.informer.get(name, namespace);
  }
}
