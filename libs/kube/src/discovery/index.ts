// API discovery, one place: kind selectors to API resources (wildcards, subresources), the served
// types to list, a group version's resources by kind or resource name. The CRD informer that tells
// discovery to read again is Nest-bound and exported by the main barrel only.
export { DiscoveryResolver, type DiscoverySource } from './discovery-resolver';
export { servedTypes, type ServedType } from './served-types';
export type { ResolvedResource, ResourceResolver } from './resource-resolver';
export {
  ApiResources,
  DiscoveryUnavailable,
  DISCOVERY_READS_PER_SECOND,
  DISCOVERY_READ_BURST,
  type ApiResource,
  type GroupVersionResource,
} from './api-resources';
