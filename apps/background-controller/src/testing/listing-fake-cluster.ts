/** FakeCluster with the listing port: kind selectors resolved from a fixed table. */
import type { ClusterListing, ObjectType } from '../policy-triggers/cluster-listing';
import { FakeCluster } from './fake-cluster';

export class ListingFakeCluster extends FakeCluster implements ClusterListing {
  constructor(private readonly types: readonly ObjectType[]) {
    super();
  }

  async typesOf(selector: string): Promise<ObjectType[]> {
    const kind = selector.slice(selector.lastIndexOf('/') + 1);
    return this.types.filter((type) => kind === '*' || type.kind === kind);
  }
}
