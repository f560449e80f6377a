/**
 * Create-only review resources, answered and never stored, as kube-apiserver does:
 * `authorization.k8s.io/v1` SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
 * SelfSubjectRulesReview, and `authentication.k8s.io/v1` SelfSubjectReview (`kubectl auth whoami`).
 *
 * There is no authorizer: every access is allowed, unless the server was started with
 * `authorization: { allowAll: false }`, when every access is denied (to exercise clients' denial paths).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/engine';
import type { AdmissionRequestContext, UserInfo } from '../admission/types';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';
import { badRequest } from '../status';

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
const DENIED_REASON = 'denied: the in-memory API server was started with authorization.allowAll false';

/** The review with its status filled in. */
export function answerReview(
  type: ResourceType,
  namespace: string | undefined,
  body: JsonValue,
  context: AdmissionRequestContext,
  allowAll: boolean,
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
        status: allowAll
          ? {
              resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
              nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
              incomplete: false,
            }
          : { resourceRules: [], nonResourceRules: [], incomplete: false },
      };
    case 'localsubjectaccessreviews': {
      const attributes = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
      if (!attributes || attributes.namespace !== namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${String(namespace)}`);
      }
      return { ...review, status: decision(allowAll) };
    }
    case 'selfsubjectaccessreviews':
      return { ...review, status: decision(allowAll) };
    default: {
      if (typeof spec.user !== 'string' && !(Array.isArray(spec.groups) && spec.groups.length > 0)) {
        throw badRequest(
          'SubjectAccessReview is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
        );
      }
      return { ...review, status: decision(allowAll) };
    }
  }
}

function decision(allowAll: boolean): JsonObject {
  return allowAll ? { allowed: true, reason: ALLOWED_REASON } : { allowed: false, denied: true, reason: DENIED_REASON };
}

function userInfoJson(user: UserInfo): JsonObject {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups ? { groups: [...user.groups] } : {}),
    ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}
