export {
  toResourceRequest,
  resolveResourceRequest,
  admissionRequestOf,
  type RequestRoles,
  type RoleResolver,
  type ResourceRequestOptions,
} from './to-resource-request';
