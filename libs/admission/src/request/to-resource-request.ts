import { type ResourceRequest, type UserInfo } from '@edict/engine';
import { isObject, type JsonObject, type KubeObject, type GroupVersionKind } from '@edict/foundation';
import type { AdmissionRequest } from '../review/types';

/** The RBAC roles bound to the requesting user: `namespace:name` Roles and ClusterRole names. */
export interface RequestRoles {
  roles: string[];
  clusterRoles: string[];
}

/**
 * Looks up the user's RoleBindings/ClusterRoleBindings (Kyverno's GetRoleRef). The app implements
 * it over its informers; keep it cheap, it runs for requests whose policies match on roles.
 */
export interface RoleResolver {
  rolesFor(userInfo: UserInfo): RequestRoles | Promise<RequestRoles>;
}

export interface ResourceRequestOptions {
  /** Labels of the request's namespace, for namespaceSelector. */
  namespaceLabels?: Record<string, string>;
  roles?: RequestRoles;
  /**
   * For subresource requests, the kind of the parent resource (`Pod` for `pods/exec`, whose
   * admission `kind` is PodExecOptions), resolved by the app from the request's GVR through
   * discovery. Without it the request's own kind is used (right for `status`, which keeps the kind).
   */
  parentKind?: GroupVersionKind;
}

/**
 * Turns an admission request into the engine's request: `object` (absent for DELETE, which
 * evaluates `oldObject`), `oldObject`, the operation, the user with roles, the subresource and
 * request kind, dryRun, and the raw request (exposed to policies as `request`).
 */
export function toResourceRequest(request: AdmissionRequest, options: ResourceRequestOptions = {}): ResourceRequest {
  const out: ResourceRequest = {
    operation: request.operation,
    admissionRequest: request as unknown as JsonObject,
    dryRun: request.dryRun === true,
  };
  const object = asObject(request.object);
  const oldObject = asObject(request.oldObject);
  if (request.operation !== 'DELETE' && object) out.resource = object;
  if (oldObject) out.oldResource = oldObject;
  // Some API servers send DELETE with the object in `object`; Kyverno evaluates the old object then.
  if (request.operation === 'DELETE' && !oldObject && object) out.oldResource = object;
  out.user = {
    userInfo: request.userInfo ?? {},
    roles: options.roles?.roles ?? [],
    clusterRoles: options.roles?.clusterRoles ?? [],
  };
  if (options.namespaceLabels) out.namespaceLabels = options.namespaceLabels;
  if (request.subResource) out.subresource = request.subResource;
  const requestKind = options.parentKind ?? request.requestKind ?? request.kind;
  if (requestKind)
    out.requestKind = { group: requestKind.group ?? '', version: requestKind.version ?? '', kind: requestKind.kind };
  return out;
}

/** {@link toResourceRequest} with the roles looked up through the app's resolver. */
export async function resolveResourceRequest(
  request: AdmissionRequest,
  resolver: RoleResolver | undefined,
  namespaceLabels?: Record<string, string>,
): Promise<ResourceRequest> {
  const roles = resolver ? await resolver.rolesFor(request.userInfo ?? {}) : undefined;
  return toResourceRequest(request, { namespaceLabels, roles });
}

/** The admission request a ResourceRequest came from, when it came from one. */
export function admissionRequestOf(request: ResourceRequest): AdmissionRequest | undefined {
  return request.admissionRequest as unknown as AdmissionRequest | undefined;
}

function asObject(value: KubeObject | null | undefined): KubeObject | undefined {
  return value && isObject(value) ? value : undefined;
}
