/**
 * The requesting user's RBAC roles (Kyverno's userinfo.GetRoleRef), from RoleBindings and
 * ClusterRoleBindings held by informers and indexed by subject, so a lookup touches only the
 * bindings that name the user, one of its groups, or its service account:
 *  - a RoleBinding to a Role gives `<namespace>:<role>`, to a ClusterRole the ClusterRole's name;
 *  - a ClusterRoleBinding gives its ClusterRole;
 *  - subjects: User by username, Group by any of the user's groups, ServiceAccount by
 *    `system:serviceaccount:<ns>:<name>` (a RoleBinding's subject without namespace takes the
 *    binding's). Results are sorted and unique. Answers are cached per user until a binding changes.
 */
import type { RequestRoles, RoleResolver } from '@edict/admission';
import type { UserInfo } from '@edict/engine';
import type { IndexFunction } from '@edict/kube';
import type { ObjectHeader } from '@edict/foundation';

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Binding extends ObjectHeader {
  subjects?: Subject[];
  roleRef?: { kind?: string; name?: string };
}

/** What the resolver reads: the two binding informers (or fakes). */
export interface BindingSource {
  byIndex(indexName: string, value: string): Binding[];
}

export const SUBJECT_INDEX = 'subject';

/** Index keys of a binding's subjects: `u:<username>` (users, service accounts) and `g:<group>`. */
export const subjectIndex: IndexFunction<Binding> = (binding) => {
  const keys: string[] = [];
  for (const subject of binding.subjects ?? []) {
    if (!subject.name) continue;
    if (subject.kind === 'User') keys.push(`u:${subject.name}`);
    else if (subject.kind === 'Group') keys.push(`g:${subject.name}`);
    else if (subject.kind === 'ServiceAccount') {
      const namespace = subject.namespace || binding.metadata?.namespace;
      if (namespace) keys.push(`u:system:serviceaccount:${namespace}:${subject.name}`);
    }
  }
  return keys;
};

const NO_ROLES: RequestRoles = Object.freeze({ roles: [], clusterRoles: [] }) as RequestRoles;

export class BindingRoleResolver implements RoleResolver {
  private readonly cache = new Map<string, RequestRoles>();

  constructor(
    private readonly roleBindings: BindingSource,
    private readonly clusterRoleBindings: BindingSource,
    private readonly maxCached = 1024,
  ) {}

  /** Forget cached answers (a binding was added, changed or removed). */
  invalidate(): void {
    this.cache.clear();
  }

  rolesFor(userInfo: UserInfo): RequestRoles {
    const username = userInfo.username ?? '';
    const groups = userInfo.groups ?? [];
    if (!username && groups.length === 0) return NO_ROLES;
    const cacheKey = `${username}\u0000${groups.join('\u0000')}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const keys = [`u:${username}`, ...groups.map((group) => `g:${group}`)];
    const roles = new Set<string>();
    const clusterRoles = new Set<string>();
    for (const key of keys) {
      for (const binding of this.roleBindings.byIndex(SUBJECT_INDEX, key)) {
        const ref = binding.roleRef;
        if (!ref?.name) continue;
        if (ref.kind === 'Role') roles.add(`${binding.metadata?.namespace ?? ''}:${ref.name}`);
        else if (ref.kind === 'ClusterRole') clusterRoles.add(ref.name);
      }
      for (const binding of this.clusterRoleBindings.byIndex(SUBJECT_INDEX, key)) {
        if (binding.roleRef?.kind === 'ClusterRole' && binding.roleRef.name) clusterRoles.add(binding.roleRef.name);
      }
    }
    const answer: RequestRoles = { roles: [...roles].sort(), clusterRoles: [...clusterRoles].sort() };
    if (this.cache.size >= this.maxCached) this.cache.clear();
    this.cache.set(cacheKey, answer);
    return answer;
  }
}
