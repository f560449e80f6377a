/**
 * validate.cel's resource loader (over this controller's Namespace informer) and the access
 * reviewer as Nest providers, shared by the webhooks and admin evaluate. The context loaders
 * themselves come from @edict/context's ContextModule.
 */
import type { Provider } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { NamespaceLabels } from '../cluster/namespace-labels.service';
import { ClusterResourceLoader, KubeAccessReviewer } from '@edict/context';

export const contextLoaderProviders: Provider[] = [
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
