import type { RequestUser, UserInfo } from '../core/types';
import type { Subject, UserInfoFilter } from '../policy/types';
import { wildcardMatch } from '@edict/foundation';

/**
 * Whether the request carries no user information at all. Kyverno compares the whole request info
 * with its zero value: strings count as unset when empty, lists and maps only when absent (an empty
 * list is still "set", as in Go where a decoded `[]` is not nil).
 */
export function isUnknownUser(user: RequestUser | undefined): boolean {
  if (user === undefined || user === null) return true;
  if (user.roles !== undefined || user.clusterRoles !== undefined) return false;
  const info = user.userInfo;
  if (info === undefined || info === null) return true;
  return !info.username && !info.uid && info.groups === undefined && info.extra === undefined;
}

/** Failure reasons of the `roles`, `clusterRoles` and `subjects` checks, in Kyverno's words; empty when all hold. */
export function userInfoFailures(filter: UserInfoFilter, user: RequestUser | undefined): string[] {
  const failures: string[] = [];
  if (filter.roles && filter.roles.length > 0 && !containsAny(filter.roles, user?.roles)) {
    failures.push('user info does not match roles for the given conditionBlock');
  }
  if (filter.clusterRoles && filter.clusterRoles.length > 0 && !containsAny(filter.clusterRoles, user?.clusterRoles)) {
    failures.push('user info does not match clustersRoles for the given conditionBlock');
  }
  if (filter.subjects && filter.subjects.length > 0 && !subjectsMatch(filter.subjects, user?.userInfo)) {
    failures.push('user info does not match subject for the given conditionBlock');
  }
  return failures;
}

/** Roles compare exactly (no wildcards); roles arrive as `namespace:name`, cluster roles as `name`. */
function containsAny(allowed: readonly string[], held: readonly string[] | undefined): boolean {
  return (held ?? []).some((role) => allowed.includes(role));
}

/**
 * Whether any subject names the requester. Subject names may hold wildcards. A ServiceAccount
 * subject is the username `system:serviceaccount:<namespace>:<name>`; a Group matches any of the
 * user's groups; a User matches the username. Other kinds never match.
 */
export function subjectsMatch(subjects: readonly Subject[], info: UserInfo | undefined): boolean {
  const username = info?.username ?? '';
  const groups = info?.groups ?? [];
  return subjects.some((subject) => {
    switch (subject?.kind) {
      case 'ServiceAccount':
        return wildcardMatch(`system:serviceaccount:${subject.namespace ?? ''}:${subject.name ?? ''}`, username);
      case 'Group':
        return groups.some((group) => wildcardMatch(subject.name ?? '', group));
      case 'User':
        return wildcardMatch(subject.name ?? '', username);
      default:
        return false;
    }
  });
}
