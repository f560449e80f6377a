import { describe, expect, it } from 'vitest';
import { reportInputOf } from '../testing';
import {
  buildAdmissionReport,
  mergeAdmissionReportInputs,
  mergeAdmissionReports,
  sameReportContent,
} from './admission-report';
import { summarize } from './results';
import type { PolicyReportResult } from './types';

const result = (policy: string, rule: string, outcome: PolicyReportResult['result']): PolicyReportResult => ({
  source: 'kyverno',
  policy,
  rule,
  result: outcome,
  scored: true,
  message: `${rule} ${outcome}`,
  timestamp: { seconds: 1, nanos: 0 },
});

describe('buildAdmissionReport', () => {
  it("builds Kyverno's namespaced admission EphemeralReport named after the request", () => {
    const report = buildAdmissionReport(reportInputOf());
    expect(report).toEqual({
      apiVersion: 'reports.kyverno.io/v1',
      kind: 'EphemeralReport',
      metadata: {
        name: 'req-1',
        namespace: 'default',
        labels: {
          'app.kubernetes.io/managed-by': 'kyverno',
          'audit.kyverno.io/source': 'admission',
          'audit.kyverno.io/resource.uid': 'pod-uid-1',
          'audit.kyverno.io/resource.gvr': 'pods.v1',
          'audit.kyverno.io/resource.group': '',
          'audit.kyverno.io/resource.version': 'v1',
          'audit.kyverno.io/resource.kind': 'Pod',
          'audit.kyverno.io/resource.hash': 'hash',
          'cpol.kyverno.io/require-team': '7',
        },
        annotations: { 'audit.kyverno.io/resource.namespace': 'default', 'audit.kyverno.io/resource.name': 'web' },
      },
      spec: {
        owner: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid-1' },
        summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
        results: reportInputOf().results,
      },
    });
  });

  it('makes a ClusterEphemeralReport for cluster-scoped resources, with group in the gvr label', () => {
    const report = buildAdmissionReport(
      reportInputOf({
        gvr: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
        resource: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'admin', uid: 'cr-1' },
        policies: [{ kind: 'Policy', name: 'p', namespace: 'team-a', resourceVersion: '3' }],
      }),
    );
    expect(report.kind).toBe('ClusterEphemeralReport');
    expect(report.metadata.namespace).toBeUndefined();
    expect(report.metadata.labels['audit.kyverno.io/resource.gvr']).toBe('clusterroles.v1.rbac.authorization.k8s.io');
    expect(report.metadata.labels['pol.kyverno.io/p']).toBe('3');
  });

  it('leaves out resource labels longer than a label value may be', () => {
    const group = `${'very-long-group-name.'.repeat(4)}example.com`;
    const report = buildAdmissionReport(
      reportInputOf({
        gvr: { group, version: 'v1', resource: 'widgets' },
        resource: { apiVersion: `${group}/v1`, kind: 'Widget', name: 'w', namespace: 'default', uid: 'w-1' },
      }),
    );
    expect(report.metadata.labels['audit.kyverno.io/resource.gvr']).toBeUndefined();
    expect(report.metadata.labels['audit.kyverno.io/resource.group']).toBeUndefined();
    expect(report.metadata.labels).toMatchObject({
      'audit.kyverno.io/resource.uid': 'w-1',
      'audit.kyverno.io/resource.kind': 'Widget',
    });
  });

  it('sets the resource as owner reference only when it already exists (not on CREATE)', () => {
    expect(buildAdmissionReport(reportInputOf()).metadata.ownerReferences).toBeUndefined();
    expect(buildAdmissionReport(reportInputOf({ operation: 'UPDATE' })).metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid-1' },
    ]);
  });

  it('orders results by policy and rule so equal inputs serialize equally', () => {
    const results = [result('b', 'r', 'pass'), result('a', 'z', 'fail'), result('a', 'a', 'warn')];
    const report = buildAdmissionReport(reportInputOf({ results }));
    expect(report.spec.results.map((r) => `${r.policy}/${r.rule}`)).toEqual(['a/a', 'a/z', 'b/r']);
  });
});

describe('summarize', () => {
  it('counts each result kind', () => {
    const results = ['pass', 'pass', 'fail', 'warn', 'error', 'skip'].map((r, i) =>
      result('p', `r${i}`, r as PolicyReportResult['result']),
    );
    expect(summarize(results)).toEqual({ pass: 2, fail: 1, warn: 1, error: 1, skip: 1 });
  });
});

describe('mergeAdmissionReports', () => {
  it('unites results by policy and rule, prefers the incoming one, keeps the stored metadata', () => {
    const stored = buildAdmissionReport(
      reportInputOf({ results: [result('a', 'r1', 'fail'), result('a', 'r2', 'pass')] }),
    );
    stored.metadata.resourceVersion = '42';
    stored.metadata.uid = 'report-uid';
    const incoming = buildAdmissionReport(
      reportInputOf({
        results: [result('a', 'r1', 'pass'), result('b', 'r', 'warn')],
        policies: [{ kind: 'ClusterPolicy', name: 'b', resourceVersion: '9' }],
      }),
    );
    const merged = mergeAdmissionReports(stored, incoming);
    expect(merged.metadata.resourceVersion).toBe('42');
    expect(merged.metadata.uid).toBe('report-uid');
    expect(merged.spec.results.map((r) => `${r.policy}/${r.rule}=${r.result}`)).toEqual([
      'a/r1=pass',
      'a/r2=pass',
      'b/r=warn',
    ]);
    expect(merged.spec.summary).toEqual({ pass: 2, fail: 0, warn: 1, error: 0, skip: 0 });
    expect(merged.metadata.labels['cpol.kyverno.io/require-team']).toBe('7');
    expect(merged.metadata.labels['cpol.kyverno.io/b']).toBe('9');
  });

  it('recognises a repeated write as no change', () => {
    const stored = buildAdmissionReport(reportInputOf());
    stored.metadata.resourceVersion = '1';
    const merged = mergeAdmissionReports(stored, buildAdmissionReport(reportInputOf()));
    expect(sameReportContent(stored, merged)).toBe(true);
    const other = mergeAdmissionReports(
      stored,
      buildAdmissionReport(reportInputOf({ results: [result('x', 'y', 'pass')] })),
    );
    expect(sameReportContent(stored, other)).toBe(false);
  });
});

describe('mergeAdmissionReportInputs', () => {
  it("keeps the earlier request's name and takes the later result per rule, object and policy versions", () => {
    const earlier = reportInputOf({
      requestUid: 'req-1',
      operation: 'CREATE',
      resourceHash: 'hash-1',
      policies: [
        { kind: 'ClusterPolicy', name: 'a', resourceVersion: '1' },
        { kind: 'ClusterPolicy', name: 'b', resourceVersion: '5' },
      ],
      results: [result('a', 'r1', 'fail'), result('b', 'r', 'pass')],
    });
    const later = reportInputOf({
      requestUid: 'req-2',
      operation: 'UPDATE',
      resourceHash: 'hash-2',
      policies: [
        { kind: 'ClusterPolicy', name: 'a', resourceVersion: '2' },
        { kind: 'Policy', namespace: 'default', name: 'a', resourceVersion: '3' },
      ],
      results: [result('a', 'r1', 'pass'), result('a', 'r2', 'warn')],
    });
    const merged = mergeAdmissionReportInputs(earlier, later);
    expect(merged.requestUid).toBe('req-1');
    expect(merged.operation).toBe('UPDATE');
    expect(merged.resourceHash).toBe('hash-2');
    expect(merged.policies).toEqual([
      { kind: 'ClusterPolicy', name: 'a', resourceVersion: '2' },
      { kind: 'ClusterPolicy', name: 'b', resourceVersion: '5' },
      { kind: 'Policy', namespace: 'default', name: 'a', resourceVersion: '3' },
    ]);
    const report = buildAdmissionReport(merged);
    expect(report.metadata.name).toBe('req-1');
    expect(report.spec.results.map((r) => `${r.policy}/${r.rule}=${r.result}`)).toEqual([
      'a/r1=pass',
      'a/r2=warn',
      'b/r=pass',
    ]);
  });

  it('writes the same report as the two inputs written one after the other', () => {
    const earlier = reportInputOf({ results: [result('a', 'r1', 'fail'), result('b', 'r', 'pass')] });
    const later = reportInputOf({ results: [result('a', 'r1', 'pass')] });
    const stored = buildAdmissionReport(earlier);
    const oneByOne = mergeAdmissionReports(stored, buildAdmissionReport(later));
    expect(buildAdmissionReport(mergeAdmissionReportInputs(earlier, later)).spec).toEqual(oneByOne.spec);
  });
});

describe('a mutating webhook report about a CREATE (no resource uid yet)', () => {
  const POD = { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' };
  const mutation = reportInputOf({
    resource: { ...POD, uid: '' },
    results: [result('add-labels', 'add-labels', 'pass')],
  });
  const validation = reportInputOf({ resource: { ...POD, uid: 'pod-uid-1' } });

  it('carries an empty uid label and no owner reference, as Kyverno writes it', () => {
    const report = buildAdmissionReport(mutation);
    expect(report.metadata.labels['audit.kyverno.io/resource.uid']).toBe('');
    expect(report.metadata.ownerReferences).toBeUndefined();
    expect(report.spec.owner).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: '' });
  });

  it("takes the validating webhook's uid when both are merged, in either order", () => {
    for (const [existing, incoming] of [
      [mutation, validation],
      [validation, mutation],
    ] as const) {
      const merged = mergeAdmissionReports(buildAdmissionReport(existing), buildAdmissionReport(incoming));
      expect(merged.metadata.labels['audit.kyverno.io/resource.uid']).toBe('pod-uid-1');
      expect(merged.spec.owner.uid).toBe('pod-uid-1');
      expect(merged.spec.results.map((r) => r.policy).sort()).toEqual(['add-labels', 'require-team']);
      expect(mergeAdmissionReportInputs(existing, incoming).resource.uid).toBe('pod-uid-1');
    }
  });
});
