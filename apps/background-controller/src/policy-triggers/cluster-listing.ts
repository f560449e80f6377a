/**
 * What a policy's lifecycle reads beyond the processing port, as a port (a typed fake in specs):
 * the types a `match` kind selector names, through API discovery, as Kyverno resolves kinds.
 */
import { type KubeResources, DiscoveryResolver, servedTypes, type ServedType } from '@edict/kube';
import { kubeClusterObjects, type ClusterObjects } from '../update-requests/cluster-objects';

export type ObjectType = Pick<ServedType, 'apiVersion' | 'kind' | 'namespaced'>;

export interface ClusterListing extends ClusterObjects {
  /** The served types a kind selector (`Namespace`, `apps/v1/Deployment`, `*`) names; subresources name none. */
  typesOf(selector: string): Promise<ObjectType[]>;
}

export function kubeClusterListing(resources: KubeResources): ClusterListing {
  const discovery = new DiscoveryResolver(resources.http);
  return {
    ...kubeClusterObjects(resources),
    typesOf: (selector) => servedTypes(discovery, selector),
  };
}
