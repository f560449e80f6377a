/**
 * What a policy's lifecycle reads beyond the processing port, as a port (a typed fake in specs):
 * the types a `match` kind selector names, through API discovery, as Kyverno resolves kinds.
 */
import { parseKind } from '@edict/engine';
import type { KubeResources } from '@edict/kube';
import { DiscoveryResolver } from '@edict/webhooks';
import { kubeClusterObjects, type ClusterObjects } from '../update-requests/cluster-objects';

export interface ObjectType {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface ClusterListing extends ClusterObjects {
  /** The served types a kind selector (`Namespace`, `apps/v1/Deployment`, `*`) names; subresources name none. */
  typesOf(selector: string): Promise<ObjectType[]>;
}

export function kubeClusterListing(resources: KubeResources): ClusterListing {
  const discovery = new DiscoveryResolver(resources.http);
  return {
    ...kubeClusterObjects(resources),
    async typesOf(selector) {
      const parsed = parseKind(selector);
      if (parsed.kind === '' || (parsed.subresource ?? '') !== '') return [];
      const resolve = await discovery.resolver([selector]);
      const seen = new Set<string>();
      const types: ObjectType[] = [];
      // One version per resource: the first discovery names (the preferred one).
      for (const found of resolve({ ...parsed, subresource: '' }) ?? []) {
        const key = `${found.group}/${found.resource}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const apiVersion = found.group ? `${found.group}/${found.version}` : found.version;
        types.push({ apiVersion, kind: found.kind, namespaced: found.namespaced });
      }
      return types;
    },
  };
}
