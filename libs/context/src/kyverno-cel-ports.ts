/**
 * The ports Kyverno's CEL libraries reach the cluster through, in a controller: http through the
 * apiCall egress client, resource through the API server, globalContext from the GlobalContextEntry
 * store, image data from the registry client. One per app (ContextModule provides it); the
 * policy engines make an activation per evaluation with kyvernoActivation(ports, scope).
 */
import type { KyvernoCelPorts } from '@edict/cel';
import type { KubeResources } from '@edict/kube';
import { StoreCelGlobalContextPort } from './cel-global-context-port';
import { RegistryCelImageDataPort } from './cel-image-data-port';
import { KubeCelResourcePort } from './cel-resource-port';
import type { ContextApiCallers } from './context-api-callers';
import type { GlobalContextStore } from './global-context-store';
import type { ImageDataSource } from './image-data-source';

export class ClusterKyvernoCelPorts {
  readonly ports: KyvernoCelPorts;

  constructor(
    resources: Pick<KubeResources, 'http' | 'resource' | 'resourceNamed'>,
    callers: Pick<ContextApiCallers, 'celHttp'>,
    globalContext: Pick<GlobalContextStore, 'get'>,
    images: ImageDataSource,
  ) {
    this.ports = {
      http: callers.celHttp,
      resources: new KubeCelResourcePort(resources),
      globalContext: new StoreCelGlobalContextPort(globalContext),
      imageData: new RegistryCelImageDataPort(images),
    };
  }
}
