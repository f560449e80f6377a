/**
 * Create-only review resources, answered and never stored, as kube-apiserver does:
 * `authorization.k8s.io/v1` SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
 * SelfSubjectRulesReview, and `authentication.k8s.io/v1` SelfSubjectReview (`kubectl auth whoami`).
 *
 * How they are answered is the server's authorization mode, as kube-apiserver's
 * `--authorization-mode`: AlwaysAllow (the default), AlwaysDeny (to exercise clients' denial
 * paths), or RBAC (./rbac.ts). The server's own requests are never authorized.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { type AccessReviewDecision, type AccessReviewRequest } from '@edict/cel';
import type { AdmissionRequestContext, UserInfo } from '../admission/types';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';
import type { ObjectStore } from '../store/object-store';
import { badRequest } from '../status';
import { authorizeWithRbac, type AccessQuestion } from './rbac';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC';

const REVIEW_RESOURCES = new Set([
  groupResourceKey('authorization.k8s.io', 'subjectaccessreviews'),
  groupResourceKey('authorization.k8s.io', 'localsubjectaccessreviews'),
  groupResourceKey('authorization.k8s.io', 'selfsubjectaccessreviews'),
  groupResourceKey('authorization.k8s.io', 'selfsubjectrulesreviews'),
  groupResourceKey('authentication.k8s.io', 'selfsubjectreviews'),
]);

export function isReviewType(type: ResourceType): boolean {
  return REVIEW_RESOURCES.has(groupResourceKey(type.group, type.plural));
}

const ALLOWED_REASON = 'allowed: the in-memory API server authorizes every request';
const DENIED_REASON = 'denied: the in-memory API server was started with authorization mode AlwaysDeny';

/** The review with its status filled in. */
export function answerReview(
  type: ResourceType,
  namespace: string | undefined,
  body: JsonValue,
  context: AdmissionRequestContext,
  mode: AuthorizationMode,
  store: ObjectStore,
): JsonObject {
  if (!isObject(body)) throw badRequest(`the body of the request is not a ${type.kind} object`);
  const spec = isObject(body.spec) ? body.spec : {};
  const review: JsonObject = {
    ...body,
    apiVersion: `${type.group}/${type.version}`,
    kind: type.kind,
    metadata: { ...(isObject(body.metadata) ? body.metadata : {}), creationTimestamp: null },
  };
  switch (type.plural) {
    case 'selfsubjectreviews':
      return { ...review, status: { userInfo: userInfoJson(context.userInfo) } };
    case 'selfsubjectrulesreviews':
      return {
        ...review,
        status:
          mode === 'AlwaysAllow'
            ? {
                resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
                nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
                incomplete: false,
              }
            : // RBAC rules are not enumerated here: an honest "incomplete" rather than a guess.
              { resourceRules: [], nonResourceRules: [], incomplete: mode === 'RBAC' },
      };
    case 'localsubjectaccessreviews': {
      const attributes = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
      if (!attributes || attributes.namespace !== namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${String(namespace)}`);
      }
      return { ...review, status: decide(mode, store, question(spec, context.userInfo.username, [])) };
    }
    case 'selfsubjectaccessreviews':
      return {
        ...review,
        status: decide(mode, store, question(spec, context.userInfo.username, context.userInfo.groups ?? [])),
      };
    default: {
      if (typeof spec.user !== 'string' && !(Array.isArray(spec.groups) && spec.groups.length > 0)) {
        throw badRequest(
          'SubjectAccessReview is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
        );
      }
      return { ...review, status: decide(mode, store, question(spec, '', [])) };
    }
  }
}

/** A SubjectAccessReview answered in-process (CEL's `authorizer` in webhook matchConditions). */
export function authorizeAccess(
  mode: AuthorizationMode,
  store: ObjectStore,
  request: AccessReviewRequest,
): AccessReviewDecision {
  const { user, groups, resourceAttributes, nonResourceAttributes } = request;
  const spec: JsonObject = {
    user,
    ...(groups ? { groups } : {}),
    ...(resourceAttributes ? { resourceAttributes: { ...resourceAttributes } } : {}),
    ...(nonResourceAttributes ? { nonResourceAttributes: { ...nonResourceAttributes } } : {}),
  };
  const status = decide(mode, store, question(spec, '', []));
  return {
    allowed: status.allowed === true,
    ...(status.denied === true ? { denied: true } : {}),
    ...(typeof status.reason === 'string' ? { reason: status.reason } : {}),
  };
}

function decide(mode: AuthorizationMode, store: ObjectStore, asked: AccessQuestion): JsonObject {
  if (mode === 'AlwaysAllow') return { allowed: true, reason: ALLOWED_REASON };
  if (mode === 'AlwaysDeny') return { allowed: false, denied: true, reason: DENIED_REASON };
  const answer = authorizeWithRbac(store, asked);
  return answer.reason ? { allowed: answer.allowed, reason: answer.reason } : { allowed: answer.allowed };
}

/** What a review's spec asks; the user and groups of a (Local)SubjectAccessReview come from its spec. */
function question(spec: JsonObject, selfUser: string, selfGroups: readonly string[]): AccessQuestion {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [];
  const resource = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonResource = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  return {
    user: text(spec.user) || selfUser,
    groups: groups.length > 0 ? groups : selfGroups,
    ...(resource
      ? {
          resource: {
            group: text(resource.group),
            resource: text(resource.resource),
            subresource: text(resource.subresource),
            namespace: text(resource.namespace),
            name: text(resource.name),
            verb: text(resource.verb),
          },
        }
      : {}),
    ...(nonResource ? { nonResource: { path: text(nonResource.path), verb: text(nonResource.verb) } } : {}),
  };
}

function userInfoJson(user: UserInfo): JsonObject {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups ? { groups: [...user.groups] } : {}),
    ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}
