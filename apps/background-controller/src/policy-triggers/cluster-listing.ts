/**
 * The reads a policy's lifecycle needs beyond single objects, as a port (a typed fake in specs):
 * the types a `match` kind selector names (through API discovery, as Kyverno resolves kinds),
 * and lists of one type, a page at a time so that a large cluster is never held in memory.
 */
import { parseKind } from '@edict/engine';
import type { KubeObject, KubeResources } from '@edict/kube';
import { DiscoveryResolver } from '@edict/webhooks';
import { kubeClusterObjects, type ClusterObjects } from '../update-requests/cluster-objects';

export interface ObjectType {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface ListRequest {
  readonly apiVersion: string;
  readonly kind: string;
  /** Only this namespace; every namespace when absent. */
  readonly namespace?: string;
  readonly labelSelector?: string;
}

export interface ClusterListing extends ClusterObjects {
  /** The served types a kind selector (`Namespace`, `apps/v1/Deployment`, `*`) names; subresources name none. */
  typesOf(selector: string): Promise<ObjectType[]>;
  /** The objects of one type, page by page (items carry kind and apiVersion). */
  list(request: ListRequest): AsyncIterable<KubeObject[]>;
}

/** Objects per list request. */
const PAGE_SIZE = 500;

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
    async *list(request) {
      const ref = { apiVersion: request.apiVersion, kind: request.kind, namespace: request.namespace };
      let next: string | undefined;
      do {
        const page = await resources.listPage(ref, {
          limit: PAGE_SIZE,
          ...(request.labelSelector ? { labelSelector: request.labelSelector } : {}),
          ...(next ? { continue: next } : {}),
        });
        yield page.items;
        next = page.continue;
      } while (next);
    },
  };
}
