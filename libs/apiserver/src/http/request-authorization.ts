/**
 * kube-apiserver's authorization of each request under `--authorization-mode=RBAC`: the request's
 * attributes are read off its path and method as kube's RequestInfo does (independently of which
 * resources are served, so an unknown resource is forbidden before it is not found), impersonation
 * needs the `impersonate` verb, and a refusal is kube's 403 Forbidden Status with its message.
 */
import type { UserInfo } from '../admission/types';
import { authorizeWithRbac, type AccessQuestion } from '../resources/rbac';
import { ApiError, qualifiedResource } from '../status';
import type { ObjectStore } from '../store/object-store';
import type { Impersonation } from './request-context';

type ResourceAttributes = NonNullable<AccessQuestion['resource']>;

/** What a request asks to do: a resource request (with its verb) or a non-resource path. */
export type RequestAttributes =
  | { readonly resource: ResourceAttributes; readonly nonResource?: undefined }
  | { readonly nonResource: { readonly path: string; readonly verb: string }; readonly resource?: undefined };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const RESOURCE_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** The attributes kube's RequestInfoFactory reads from a request's method, path and query. */
export function requestAttributes(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const nonResource = { nonResource: { path, verb: method.toLowerCase() } };
  let parts = path.split('/').filter(Boolean);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  let group = '';
  if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource;
    group = parts[1]!;
    parts = parts.slice(3);
  } else {
    parts = parts.slice(2);
  }
  let verb = RESOURCE_VERBS[method] ?? '';
  // The deprecated `/watch/` path prefix names the verb.
  if (parts[0] === 'watch' && parts.length > 1) {
    verb = 'watch';
    parts = parts.slice(1);
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const [resource = '', pathName = '', subresource = ''] = parts;
  let name = pathName;
  if (name === '' && verb === 'get') {
    verb = query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
    // A list or watch of one object by field selector is authorized as for that name.
    const exact = /(?:^|,)metadata\.name==?([^,]+)(?:,|$)/.exec(query.get('fieldSelector') ?? '');
    if (exact && !exact[1]!.includes('/')) name = exact[1]!;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { resource: { group, resource, subresource, namespace, name, verb } };
}

/**
 * Throws kube's 403 when `user` may not make the request (nor impersonate whom it asks to). The
 * `system:masters` group is never refused (kube's privileged-group authorizer), nor are the kube
 * bootstrap roles' paths (discovery, health, version) for authenticated users.
 */
export function authorizeRequest(
  store: ObjectStore,
  user: UserInfo,
  impersonation: Impersonation | undefined,
  attributes: RequestAttributes,
): void {
  if (impersonation) {
    for (const target of impersonationTargets(impersonation)) check(store, user, target);
  }
  check(store, impersonation?.user ?? user, attributes);
}

function check(store: ObjectStore, user: UserInfo, attributes: RequestAttributes): void {
  const question: AccessQuestion = { user: user.username, groups: user.groups ?? [], ...attributes };
  const answer = authorizeWithRbac(store, question);
  if (!answer.allowed) throw forbidden(user.username, attributes, answer.reason);
}

/** What impersonating asks: `impersonate` on the user (or service account), each group, the uid. */
function impersonationTargets({ user, requestedGroups }: Impersonation): RequestAttributes[] {
  const asked = (group: string, resource: string, name: string, namespace = ''): RequestAttributes => ({
    resource: { group, resource, subresource: '', namespace, name, verb: 'impersonate' },
  });
  const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user.username);
  return [
    serviceAccount
      ? asked('', 'serviceaccounts', serviceAccount[2]!, serviceAccount[1]!)
      : asked('', 'users', user.username),
    ...requestedGroups.map((group) => asked('', 'groups', group)),
    ...(user.uid ? [asked('authentication.k8s.io', 'uids', user.uid)] : []),
  ];
}

/** kube's `Forbidden` Status: `<resource> "<name>" is forbidden: User "<user>" cannot <verb> ...`. */
function forbidden(username: string, attributes: RequestAttributes, reason: string): ApiError {
  const because = reason ? `: ${reason}` : '';
  if (attributes.nonResource) {
    const { path, verb } = attributes.nonResource;
    return new ApiError(403, 'Forbidden', `forbidden: User "${username}" cannot ${verb} path "${path}"${because}`, {});
  }
  const { group, resource, subresource, namespace, name, verb } = attributes.resource;
  const asked = subresource ? `${resource}/${subresource}` : resource;
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const cannot = `User "${username}" cannot ${verb} resource "${asked}" in API group "${group}" ${scope}${because}`;
  const what = qualifiedResource(group, resource);
  return new ApiError(403, 'Forbidden', `${what}${name ? ` "${name}"` : ''} is forbidden: ${cannot}`, {
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    kind: resource,
  });
}
