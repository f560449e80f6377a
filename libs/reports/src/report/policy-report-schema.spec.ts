/**
 * A generated PolicyReport against the wgpolicyk8s.io CRD's openAPIV3Schema, as the API server
 * (here the in-memory one, which validates custom resources as kube-apiserver does) checks it:
 * what the reports controller writes is what Policy Reporter and other readers expect.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { installPolicyCrds } from '@edict/policy';
import { buildPolicyReport } from './policy-report';

function serverWithCrds(): InMemoryApiServer {
  const server = new InMemoryApiServer();
  installPolicyCrds(server);
  return server;
}

const report = (namespace?: string) =>
  buildPolicyReport(
    {
      apiVersion: 'v1',
      kind: namespace ? 'Pod' : 'Namespace',
      name: 'web',
      uid: 'uid-1',
      ...(namespace ? { namespace } : {}),
    },
    [
      {
        source: 'kyverno',
        policy: 'require-team',
        rule: 'check-team',
        result: 'fail',
        scored: true,
        message: "validation error: label 'team' is required",
        category: 'Best Practices',
        severity: 'medium',
        timestamp: { seconds: 1_700_000_000, nanos: 0 },
        properties: { process: 'admission review' },
      },
    ],
    [{ kind: 'ClusterPolicy', name: 'require-team', resourceVersion: '3' }],
  ) as unknown as JsonObject;

describe('PolicyReport against the wgpolicyk8s.io CRD schema', () => {
  it('accepts a generated PolicyReport and ClusterPolicyReport', () => {
    const server = serverWithCrds();
    expect(() => server.create(report('default'))).not.toThrow();
    expect(() => server.create(report())).not.toThrow();
    expect(server.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', 'uid-1', 'default')).toMatchObject({
      summary: { fail: 1 },
      scope: { kind: 'Pod', name: 'web' },
    });
  });

  it('refuses what readers could not parse: an unknown result, a bad severity, a string timestamp', () => {
    const server = serverWithCrds();
    const broken = (change: (result: JsonObject) => void) => {
      const object = report();
      change((object.results as JsonObject[])[0]!);
      return () => server.create(object);
    };
    expect(broken((result) => (result.result = 'failed'))).toThrow(/results\[0\]\.result/);
    expect(broken((result) => (result.severity = 'urgent'))).toThrow(/results\[0\]\.severity/);
    expect(broken((result) => (result.timestamp = '2024-01-01T00:00:00Z'))).toThrow(/results\[0\]\.timestamp/);
    expect(broken((result) => delete result.policy)).toThrow(/results\[0\]\.policy/);
  });
});
