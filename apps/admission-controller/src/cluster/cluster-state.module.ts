/**
 * What the admission controller reads of the cluster besides policies, from informers: namespace
 * labels, role bindings (a request's roles), and the API resources served (discovery).
 */
import { Module, type FactoryProvider } from '@nestjs/common';
import { KubeResources, ApiResources } from '@edict/kube';
import { NamespaceLabels } from './namespace-labels.service';
import { RoleResolverService } from './role-resolver.service';

/** Discovery read through the Kube client. */
export const apiResourcesProvider: FactoryProvider<ApiResources> = {
  provide: ApiResources,
  inject: [KubeResources],
  useFactory: (resources: KubeResources) => new ApiResources((path) => resources.http.json({ path })),
};

@Module({
  providers: [NamespaceLabels, RoleResolverService, apiResourcesProvider],
  exports: [NamespaceLabels, RoleResolverService, ApiResources],
})
export class ClusterStateModule {}
