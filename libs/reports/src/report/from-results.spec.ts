import { describe, expect, it } from 'vitest';
import { reportResultOf } from '../testing';
import { admissionReportInput, toPolicyReportResult } from './from-results';
import { resourceHash } from './resource-hash';

const request = { uid: 'req-9', operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' } };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'pod-uid-1' } };

describe('toPolicyReportResult', () => {
  it('keeps the row and leaves out the resource (the report scope) and the rule type', () => {
    expect(toPolicyReportResult(reportResultOf({ category: 'Best Practices', properties: { a: 'b' } }))).toEqual({
      source: 'kyverno',
      policy: 'require-team',
      rule: 'check-team',
      result: 'fail',
      scored: true,
      message: "validation error: label 'team' is required",
      category: 'Best Practices',
      properties: { a: 'b' },
      timestamp: { seconds: 1_700_000_000, nanos: 0 },
    });
  });
});

describe('admissionReportInput', () => {
  it('collects the policies with their resourceVersion, and carries the resource hash', () => {
    const input = admissionReportInput(
      request,
      resourceHash(pod),
      [reportResultOf(), reportResultOf({ policy: 'team-a/local', rule: 'r', result: 'warn' })],
      (key) =>
        key === 'require-team' ? { kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '12' } : undefined,
    );
    expect(input).toMatchObject({
      requestUid: 'req-9',
      operation: 'CREATE',
      gvr: request.resource,
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'pod-uid-1' },
      resourceHash: resourceHash(pod),
      policies: [
        { kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '12' },
        { kind: 'Policy', namespace: 'team-a', name: 'local' },
      ],
    });
    expect(input?.results).toHaveLength(2);
  });

  it('is undefined without results; without a resource uid (a mutating webhook at CREATE) the uid is empty', () => {
    expect(admissionReportInput(request, resourceHash(pod), [], () => undefined)).toBeUndefined();
    const noUid = reportResultOf({ resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' } });
    expect(admissionReportInput(request, resourceHash(pod), [noUid], () => undefined)?.resource).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'web',
      namespace: 'default',
      uid: '',
    });
  });
});
