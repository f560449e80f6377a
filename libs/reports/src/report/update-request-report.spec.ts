import { describe, expect, it } from 'vitest';
import { buildUpdateRequestReport, reportedObject } from './update-request-report';

describe('reportedObject', () => {
  it('names objects as Kyverno prints them in result properties', () => {
    expect(reportedObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' } })).toBe(
      '/v1, Kind=Secret Name=s Namespace=ns',
    );
    expect(
      reportedObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } }),
    ).toBe('rbac.authorization.k8s.io/v1, Kind=ClusterRole Name=r');
  });
});

describe('buildUpdateRequestReport', () => {
  const input = {
    requestKey: 'ur-uid',
    trigger: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'team-a', uid: 'd-uid' },
    triggerHash: 'hash',
    policy: { kind: 'Policy' as const, name: 'p', namespace: 'team-a', resourceVersion: '3' },
    results: [],
  };

  it('is a background-scan EphemeralReport owned by the trigger, without a scan time', () => {
    const report = buildUpdateRequestReport(input);
    expect(report.metadata).toMatchObject({
      namespace: 'team-a',
      labels: {
        'audit.kyverno.io/source': 'background-scan',
        'audit.kyverno.io/resource.group': 'apps',
        'audit.kyverno.io/resource.hash': 'hash',
        'pol.kyverno.io/p': '3',
      },
      annotations: { 'audit.kyverno.io/resource.namespace': 'team-a', 'audit.kyverno.io/resource.name': 'web' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-uid' }],
    });
    expect(report.metadata.annotations).not.toHaveProperty('audit.kyverno.io/last-scan-time');
  });

  it('derives its name from the trigger and the request only', () => {
    const name = buildUpdateRequestReport(input).metadata.name;
    expect(name).toMatch(/^d-uid-[0-9a-f]{10}$/);
    expect(buildUpdateRequestReport({ ...input, triggerHash: 'other' }).metadata.name).toBe(name);
    expect(buildUpdateRequestReport({ ...input, requestKey: 'ur-2' }).metadata.name).not.toBe(name);
  });
});
