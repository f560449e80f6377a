/** FakeCluster with the listing port: kind selectors resolved from a fixed table, lists filtered by equality label selectors. */
import type { KubeObject } from '@edict/kube';
import type { ClusterListing, ListRequest, ObjectType } from '../policy-triggers/cluster-listing';
import { FakeCluster } from './fake-cluster';

export class ListingFakeCluster extends FakeCluster implements ClusterListing {
  constructor(private readonly types: readonly ObjectType[]) {
    super();
  }

  async typesOf(selector: string): Promise<ObjectType[]> {
    const kind = selector.slice(selector.lastIndexOf('/') + 1);
    return this.types.filter((type) => kind === '*' || type.kind === kind);
  }

  async *list(request: ListRequest): AsyncIterable<KubeObject[]> {
    const wanted = (request.labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('=') as [string, string]);
    const items = [...this.objects.values()].filter(
      (object) =>
        object.apiVersion === request.apiVersion &&
        object.kind === request.kind &&
        (request.namespace === undefined || object.metadata?.namespace === request.namespace) &&
        wanted.every(([key, value]) => object.metadata?.labels?.[key] === value),
    );
    // Two objects a page, so that paging is exercised.
    for (let start = 0; start < items.length; start += 2) yield structuredClone(items.slice(start, start + 2));
  }
}
