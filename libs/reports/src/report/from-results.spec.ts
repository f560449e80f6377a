import { describe, expect, it } from 'vitest';
import { reportResultOf } from '../testing';
import { admissionReportInput, toPolicyReportResult } from './from-results';
import { resourceHash } from './resource-hash';

const request = { uid: 'req-9', operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' } };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'pod-uid-1' } };

describe('toPolicyReportResult', () => {
  it('writes whole seconds, scored, and only the optional fields that are set', () => {
    expect(toPolicyReportResult(reportResultOf())).toEqual({
      source: 'kyverno',
      policy: 'require-team',
      rule: 'check-team',
      result: 'fail',
      scored: true,
      message: "validation error: label 'team' is required",
      timestamp: { seconds: 1_700_000_000, nanos: 0 },
    });
    const full = toPolicyReportResult(
      reportResultOf({ category: 'Best Practices', severity: 'medium', properties: { a: 'b' } }),
      false,
    );
    expect(full).toMatchObject({
      scored: false,
      category: 'Best Practices',
      severity: 'medium',
      properties: { a: 'b' },
    });
  });
});

describe('admissionReportInput', () => {
  it('collects the policies with their resourceVersion and scoring, and hashes the object', () => {
    const input = admissionReportInput(
      request,
      pod,
      [reportResultOf(), reportResultOf({ policy: 'team-a/local', rule: 'r', result: 'warn' })],
      (key) =>
        key === 'require-team'
          ? { kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '12', scored: true }
          : undefined,
    );
    expect(input).toMatchObject({
      requestUid: 'req-9',
      operation: 'CREATE',
      gvr: request.resource,
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'pod-uid-1' },
      resourceHash: resourceHash(pod),
      policies: [
        { kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '12', scored: true },
        { kind: 'Policy', namespace: 'team-a', name: 'local', scored: true },
      ],
    });
    expect(input?.results).toHaveLength(2);
  });

  it('is undefined without results or without a resource uid', () => {
    expect(admissionReportInput(request, pod, [], () => undefined)).toBeUndefined();
    const noUid = reportResultOf({ resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' } });
    expect(admissionReportInput(request, pod, [noUid], () => undefined)).toBeUndefined();
  });
});
