import type { JsonObject, JsonValue } from '@edict/foundation';
import type { RequestUser, ResourceRequest } from '../core/types';
import { mergeObjects } from './context-data';

/** The part of an EvaluationContext the request fills (an interface here, so this file does not import its user). */
export interface RequestContextTarget {
  add(name: string, value: JsonValue): void;
  replace(name: string, value: JsonValue): void;
  setOperation(operation: string): void;
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * Fills a context as Kyverno's policy context constructors do for a request without an admission
 * request (CLI, background scan; `admissionDocument` has the webhook's): only `request.object` (or `request.oldObject` for DELETE, or in
 * addition for UPDATE when an old object is given), `request.namespace` (the resource's namespace,
 * `""` when it has none), the user data when a user is given, and `request.operation`. Kyverno does
 * not synthesise `request.name`, `request.kind`, `request.userInfo` etc. there, so neither do we:
 * a policy reading them gets Kyverno's "Unknown key" error.
 */
export function populateFromRequest(ctx: RequestContextTarget, request: ResourceRequest): void {
  const deleting = request.operation === 'DELETE';
  const current = deleting ? undefined : request.resource;
  const old = deleting ? (request.oldResource ?? request.resource) : request.oldResource;
  if (current) ctx.replace('request.object', current);
  if (old) ctx.replace('request.oldObject', old);
  const subject = current ?? old;
  ctx.add('request.namespace', namespaceOf(subject));
  if (request.user) addUser(ctx, request.user, request.user.userInfo?.username ?? '');
  ctx.setOperation(request.operation);
}

/**
 * The document of a request with an admission request (webhook): the request as-is under `request`
 * with the user data and the operation merged into it, then the service account variables. Built
 * in one go: on an empty context, this is what adding each in turn gives.
 */
export function admissionDocument(
  request: ResourceRequest,
  admissionRequest: JsonObject,
): { document: JsonObject; operation: string } {
  const username = request.user?.userInfo?.username ?? admissionUsername(admissionRequest);
  const stated = admissionRequest['operation'];
  const operation = typeof stated === 'string' ? stated : request.operation;
  const { name, namespace } = serviceAccountOf(username);
  const additions: JsonObject = userData(request.user ?? {});
  additions['operation'] = operation;
  return {
    document: {
      request: mergeObjects(admissionRequest, additions, false),
      serviceAccountName: name,
      serviceAccountNamespace: namespace,
    },
    operation,
  };
}

/** Kyverno's RequestInfo as JSON: empty roles/fields are omitted, `userInfo` is always there. */
function userData(user: RequestUser): JsonObject {
  const data: JsonObject = {};
  if (user.roles && user.roles.length > 0) data['roles'] = user.roles;
  if (user.clusterRoles && user.clusterRoles.length > 0) data['clusterRoles'] = user.clusterRoles;
  const info = user.userInfo ?? {};
  const userInfo: JsonObject = {};
  if (info.username) userInfo['username'] = info.username;
  if (info.uid) userInfo['uid'] = info.uid;
  if (info.groups && info.groups.length > 0) userInfo['groups'] = info.groups;
  if (info.extra && Object.keys(info.extra).length > 0) userInfo['extra'] = info.extra as unknown as JsonObject;
  data['userInfo'] = userInfo;
  return data;
}

/** The user data merged into `request`, then the service account variables. */
function addUser(ctx: RequestContextTarget, user: RequestUser, username: string): void {
  ctx.add('request', userData(user));
  const { name, namespace } = serviceAccountOf(username);
  ctx.add('serviceAccountName', name);
  ctx.add('serviceAccountNamespace', namespace);
}

/**
 * `system:serviceaccount:<namespace>:<name>` → name and namespace. Like Kyverno, the prefix is cut
 * by length without checking it, and anything that does not split into two parts gives `""`.
 */
export function serviceAccountOf(username: string): { name: string; namespace: string } {
  // The first two ':'-separated parts after the prefix, found without splitting the whole name.
  const start = SERVICE_ACCOUNT_PREFIX.length;
  const first = username.length <= start ? -1 : username.indexOf(':', start);
  if (first < 0) return { name: '', namespace: '' };
  const second = username.indexOf(':', first + 1);
  return { name: username.slice(first + 1, second < 0 ? undefined : second), namespace: username.slice(start, first) };
}

function admissionUsername(admissionRequest: JsonObject): string {
  const userInfo = admissionRequest['userInfo'];
  if (userInfo === null || typeof userInfo !== 'object' || Array.isArray(userInfo)) return '';
  const username: JsonValue | undefined = userInfo['username'];
  return typeof username === 'string' ? username : '';
}

function namespaceOf(resource: JsonObject | undefined): string {
  const metadata = resource?.['metadata'];
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return '';
  const namespace = metadata['namespace'];
  return typeof namespace === 'string' ? namespace : '';
}
