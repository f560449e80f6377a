import { describe, expect, it } from 'vitest';
import { ObjectCache } from '@edict/kube';
import { BindingRoleResolver, SUBJECT_INDEX, subjectIndex } from './role-resolver';

function bindings(items: object[]) {
  const cache = new ObjectCache<never>({ [SUBJECT_INDEX]: subjectIndex as never });
  for (const item of items) cache.upsert(item as never);
  return cache;
}

const roleBinding = (namespace: string, name: string, roleKind: string, role: string, subjects: object[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
  subjects,
});
const clusterRoleBinding = (name: string, role: string, subjects: object[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects,
});

describe('BindingRoleResolver', () => {
  const rbs = bindings([
    roleBinding('team-a', 'dev', 'Role', 'developer', [{ kind: 'User', name: 'alice' }]),
    roleBinding('team-a', 'view', 'ClusterRole', 'view', [{ kind: 'Group', name: 'devs' }]),
    roleBinding('team-b', 'bot', 'Role', 'deployer', [{ kind: 'ServiceAccount', name: 'ci' }]),
    roleBinding('team-b', 'other', 'Role', 'nobody', [{ kind: 'User', name: 'bob' }]),
  ]);
  const crbs = bindings([
    clusterRoleBinding('admins', 'cluster-admin', [{ kind: 'Group', name: 'admins' }]),
    clusterRoleBinding('ci-global', 'ci-reader', [{ kind: 'ServiceAccount', name: 'ci', namespace: 'team-b' }]),
    clusterRoleBinding('sa-no-ns', 'never', [{ kind: 'ServiceAccount', name: 'ci' }]),
    clusterRoleBinding('alice-view', 'view', [{ kind: 'User', name: 'alice' }]),
  ]);
  const resolver = new BindingRoleResolver(rbs, crbs);

  it("gives Roles as ns:name and ClusterRoles by name, sorted and unique (Kyverno's GetRoleRef)", () => {
    expect(resolver.rolesFor({ username: 'alice', groups: ['devs', 'system:authenticated'] })).toEqual({
      roles: ['team-a:developer'],
      clusterRoles: ['view'],
    });
  });

  it('matches groups, and service accounts by their username (namespace from the RoleBinding)', () => {
    expect(resolver.rolesFor({ username: 'carol', groups: ['admins'] })).toEqual({
      roles: [],
      clusterRoles: ['cluster-admin'],
    });
    expect(resolver.rolesFor({ username: 'system:serviceaccount:team-b:ci' })).toEqual({
      roles: ['team-b:deployer'],
      clusterRoles: ['ci-reader'],
    });
  });

  it('gives nothing to an unknown or anonymous user', () => {
    expect(resolver.rolesFor({ username: 'mallory' })).toEqual({ roles: [], clusterRoles: [] });
    expect(resolver.rolesFor({})).toEqual({ roles: [], clusterRoles: [] });
  });

  it('sees binding changes after invalidate', () => {
    const local = bindings([]);
    const own = new BindingRoleResolver(local, bindings([]));
    expect(own.rolesFor({ username: 'dave' }).roles).toEqual([]);
    local.upsert(roleBinding('x', 'd', 'Role', 'r', [{ kind: 'User', name: 'dave' }]) as never);
    own.invalidate();
    expect(own.rolesFor({ username: 'dave' }).roles).toEqual(['x:r']);
  });

  it('stays cheap with many bindings (figure printed, no assertion on speed)', () => {
    const many = bindings(
      Array.from({ length: 10_000 }, (_, i) =>
        roleBinding(`ns-${i % 100}`, `b-${i}`, 'Role', `r-${i}`, [{ kind: 'User', name: `user-${i % 500}` }]),
      ),
    );
    const big = new BindingRoleResolver(many, bindings([]));
    const users = Array.from({ length: 2_000 }, (_, i) => ({ username: `user-${i % 700}`, groups: ['g1', 'g2'] }));
    let started = performance.now();
    for (const user of users) big.rolesFor(user);
    const cold = (performance.now() - started) / users.length;
    started = performance.now();
    for (let round = 0; round < 10; round += 1) for (const user of users) big.rolesFor(user);
    const warm = (performance.now() - started) / (users.length * 10);
    console.log(
      `role lookup over 10k RoleBindings: ${(cold * 1000).toFixed(1)} µs uncached, ${(warm * 1000).toFixed(2)} µs cached`,
    );
    expect(big.rolesFor({ username: 'user-1' }).roles).toHaveLength(20);
  });
});
