/**
 * The controller's context loaders, validate.cel's resource loader and access reviewer as Nest
 * providers (one set, shared by the webhooks and admin evaluate).
 */
import type { Provider } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { NamespaceLabels } from '../cluster/namespace-labels.service';
import {
  ClusterContextLoaders,
  ClusterResourceLoader,
  ContextApiCallers,
  FairContextLoads,
  IMAGE_DATA_SOURCE,
  KubeAccessReviewer,
  type ImageDataSource,
} from '@edict/context';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { ConfigMapCache } from './configmap-cache';
import { GlobalContextService } from './global-context.service';
import { PullSecretCache } from './pull-secret-cache';
import { RegistryImageData } from './registry-image-data';

export const contextLoaderProviders: Provider[] = [
  ConfigMapCache,
  {
    provide: ContextApiCallers,
    inject: [CONTROLLER_CONFIG, KubeResources],
    useFactory: (config: ControllerConfig, resources: KubeResources) => new ContextApiCallers(config, resources),
  },
  GlobalContextService,
  PullSecretCache,
  RegistryImageData,
  { provide: IMAGE_DATA_SOURCE, useExisting: RegistryImageData },
  {
    provide: ClusterContextLoaders,
    inject: [ConfigMapCache, ContextApiCallers, GlobalContextService, IMAGE_DATA_SOURCE, CONTROLLER_CONFIG],
    useFactory: (
      configMaps: ConfigMapCache,
      callers: ContextApiCallers,
      globalContext: GlobalContextService,
      images: ImageDataSource,
      config: ControllerConfig,
    ) =>
      new ClusterContextLoaders(
        configMaps,
        callers,
        globalContext.store,
        images,
        new FairContextLoads({
          maxLoads: config.maxContextLoads,
          maxLoadsPerNamespace: config.maxContextLoadsPerNamespace,
        }),
      ),
  },
  {
    provide: ClusterResourceLoader,
    inject: [KubeResources, NamespaceLabels],
    useFactory: (resources: KubeResources, namespaces: NamespaceLabels) =>
      new ClusterResourceLoader(resources, namespaces),
  },
  {
    provide: KubeAccessReviewer,
    inject: [KubeResources],
    useFactory: (resources: KubeResources) => new KubeAccessReviewer(resources),
  },
];
