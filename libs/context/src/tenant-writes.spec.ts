import { describe, expect, it } from 'vitest';
import { checkTenantWrite, isKyvernoKind, TenantWriteRefused } from './tenant-writes';

const tenant = { kind: 'Policy', namespace: 'team-a', name: 'escape' };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'cm' };

describe('checkTenantWrite', () => {
  it('lets a namespaced policy write namespaced objects of its own namespace, and a cluster-wide one anything', () => {
    expect(() => checkTenantWrite(tenant, 'create', configMap, true)).not.toThrow();
    const clusterPolicy = { kind: 'ClusterPolicy', name: 'p' };
    expect(() =>
      checkTenantWrite(
        clusterPolicy,
        'update',
        { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'x' },
        false,
      ),
    ).not.toThrow();
  });

  it('refuses a cluster-scoped kind, naming the policy, the verb and the object', () => {
    const write = () =>
      checkTenantWrite(
        tenant,
        'update',
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'admin' },
        false,
      );
    expect(write).toThrow(TenantWriteRefused);
    expect(write).toThrow(
      'Policy team-a/escape may not update rbac.authorization.k8s.io/v1/ClusterRole admin: a namespaced policy writes only namespaced objects of its own namespace "team-a" (ClusterRole is cluster-scoped)',
    );
  });

  it('refuses another namespace, no namespace, and a kind discovery does not know (fail closed)', () => {
    expect(() => checkTenantWrite(tenant, 'create', { ...configMap, namespace: 'team-b' }, true)).toThrow(
      '(the object is in namespace "team-b")',
    );
    expect(() => checkTenantWrite(tenant, 'create', { ...configMap, namespace: undefined }, true)).toThrow(
      '(the object is in no namespace)',
    );
    expect(() => checkTenantWrite(tenant, 'create', configMap, undefined)).toThrow(
      'cannot be determined from discovery',
    );
  });

  it("refuses Kyverno's own kinds even in the policy's namespace", () => {
    for (const apiVersion of [
      'kyverno.io/v1',
      'kyverno.io/v2',
      'policies.kyverno.io/v1',
      'reports.kyverno.io/v1',
      'wgpolicyk8s.io/v1alpha2',
    ]) {
      expect(() =>
        checkTenantWrite(tenant, 'create', { apiVersion, kind: 'Policy', namespace: 'team-a', name: 'p' }, true),
      ).toThrow("Kyverno's own kinds");
    }
  });
});

describe('isKyvernoKind', () => {
  it('tells Kyverno groups from the rest', () => {
    expect(isKyvernoKind('kyverno.io/v1')).toBe(true);
    expect(isKyvernoKind('cli.kyverno.io/v1alpha1')).toBe(true);
    expect(isKyvernoKind('v1')).toBe(false);
    expect(isKyvernoKind('notkyverno.io/v1')).toBe(false);
  });
});
