import { describe, expect, it } from 'vitest';
import { buildPolicyReport, mergeResults, samePolicyReport } from './policy-report';
import type { PolicyReportResult } from './types';

const result = (rule: string, outcome: PolicyReportResult['result'], seconds: number): PolicyReportResult => ({
  source: 'kyverno',
  policy: 'require-team',
  rule,
  result: outcome,
  scored: true,
  message: `${rule} ${outcome}`,
  timestamp: { seconds, nanos: 0 },
});
const pod = { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'pod-uid-1' };
const policies = [{ kind: 'ClusterPolicy' as const, name: 'require-team', resourceVersion: '7' }];

describe('buildPolicyReport', () => {
  it('names the report after the resource uid, owned by and scoped to the resource, with a summary', () => {
    const report = buildPolicyReport(pod, [result('b', 'pass', 1), result('a', 'fail', 1)], policies);
    expect(report).toMatchObject({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: 'PolicyReport',
      metadata: {
        name: 'pod-uid-1',
        namespace: 'default',
        labels: { 'app.kubernetes.io/managed-by': 'kyverno', 'cpol.kyverno.io/require-team': '7' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid-1' }],
      },
      scope: pod,
      summary: { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
    });
    expect(report.results.map((r) => r.rule)).toEqual(['a', 'b']);
  });

  it('gives a cluster-scoped resource a ClusterPolicyReport without a namespace', () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', name: 'bar', uid: 'ns-uid' };
    const report = buildPolicyReport(namespace, [result('a', 'pass', 1)], policies);
    expect(report.kind).toBe('ClusterPolicyReport');
    expect(report.metadata).not.toHaveProperty('namespace');
  });
});

describe('mergeResults', () => {
  it('keeps the newest result per policy and rule; a later batch wins within the same second', () => {
    const merged = mergeResults(
      [result('a', 'fail', 10), result('b', 'fail', 10)],
      [[result('a', 'pass', 10)], [result('b', 'pass', 9), result('c', 'warn', 3)]],
    );
    expect(merged.map((r) => `${r.rule}=${r.result}`)).toEqual(['a=pass', 'b=fail', 'c=warn']);
  });

  it("keeps one result per MutatingPolicy, whatever its rule (Kyverno's key is source and policy)", () => {
    const mpol = (rule: string, status: PolicyReportResult['result'], seconds: number): PolicyReportResult => ({
      ...result(rule, status, seconds),
      policy: 'add-team',
      source: 'KyvernoMutatingPolicy',
    });
    const merged = mergeResults([mpol('exception', 'skip', 10)], [[mpol('', 'pass', 11)]]);
    expect(merged.map((r) => `${r.rule}=${r.result}`)).toEqual(['=pass']);
    // Classic rules of one policy stay apart.
    expect(mergeResults([result('a', 'fail', 10)], [[result('b', 'pass', 11)]])).toHaveLength(2);
  });
});

describe('samePolicyReport', () => {
  it('sees no change when only key order differs, and sees a changed result or label', () => {
    const report = buildPolicyReport(pod, [result('a', 'fail', 1)], policies);
    const reordered = JSON.parse(
      JSON.stringify({ ...report, results: report.results.map((r) => ({ ...r })).reverse() }),
    );
    reordered.results[0] = Object.fromEntries(Object.entries(reordered.results[0]).reverse());
    expect(samePolicyReport(reordered, report)).toBe(true);
    expect(samePolicyReport(report, buildPolicyReport(pod, [result('a', 'pass', 1)], policies))).toBe(false);
    const newerPolicy = [{ ...policies[0]!, resourceVersion: '8' }];
    expect(samePolicyReport(report, buildPolicyReport(pod, [result('a', 'fail', 1)], newerPolicy))).toBe(false);
  });
});
