import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '@edict/admission';
import { MetricsConfiguration } from '@edict/controller-runtime';
import { AdmissionMetrics } from './admission-metrics';
import { DeprecatedApiMetrics, deprecatedPolicyFields } from './deprecated-api-metrics';

function setUp(configuration = MetricsConfiguration.DEFAULT) {
  const metrics = new AdmissionMetrics({
    vocabulary: { knowsKind: () => true, knowsNamespace: () => true },
    maxSeries: 100,
  });
  return { metrics, deprecated: new DeprecatedApiMetrics(metrics, configuration) };
}

const write = (version: string, kind: string, spec: unknown, namespace?: string): AdmissionRequest =>
  ({
    uid: 'u',
    kind: { group: 'kyverno.io', version: 'v1', kind },
    requestKind: { group: 'kyverno.io', version, kind },
    resource: { group: 'kyverno.io', version: 'v1', resource: 'x' },
    operation: 'CREATE',
    ...(namespace ? { namespace } : {}),
    userInfo: { username: 'u' },
    object: { apiVersion: `kyverno.io/${version}`, kind, metadata: { name: 'p' }, spec },
  }) as AdmissionRequest;

const series = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('kyverno_deprecated_api_requests_total{'))
    .sort();

describe('kyverno_deprecated_api_requests_total', () => {
  it("counts writes in a deprecated apiVersion and each deprecated policy field, with Kyverno's labels", async () => {
    const { metrics, deprecated } = setUp();
    deprecated.record(write('v2beta1', 'ClusterPolicy', { rules: [] }));
    deprecated.record(
      write('v1', 'ClusterPolicy', {
        validationFailureAction: 'Enforce',
        webhookTimeoutSeconds: 5,
        rules: [
          { name: 'a' },
          { name: 'b', verifyImages: [{ image: 'ghcr.io/*', attestations: [{ predicateType: 't' }] }] },
        ],
      }),
    );
    deprecated.record(write('v1', 'ClusterPolicy', { rules: [{ name: 'clean' }] }));
    deprecated.record(write('v2', 'PolicyException', {}));
    expect(series(await metrics.text())).toEqual([
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v1",kind="ClusterPolicy",field="rules[1].verifyImages.attestations[0].predicateType"} 1',
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v1",kind="ClusterPolicy",field="rules[1].verifyImages.image"} 1',
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v1",kind="ClusterPolicy",field="spec.validationFailureAction"} 1',
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v1",kind="ClusterPolicy",field="spec.webhookTimeoutSeconds"} 1',
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v2beta1",kind="ClusterPolicy",field=""} 1',
    ]);
  });

  it('leaves out requests from namespaces the kyverno-metrics ConfigMap excludes', async () => {
    const configuration = new MetricsConfiguration({ namespaces: JSON.stringify({ exclude: ['team-a'] }) });
    const { metrics, deprecated } = setUp(configuration);
    deprecated.record(write('v2beta1', 'Policy', {}, 'team-a'));
    deprecated.record(write('v2beta1', 'Policy', {}, 'team-b'));
    expect(series(await metrics.text())).toEqual([
      'kyverno_deprecated_api_requests_total{group="kyverno.io",version="v2beta1",kind="Policy",field=""} 1',
    ]);
  });

  it('reads the fields whatever the spec holds', () => {
    expect(deprecatedPolicyFields({ rules: 'nonsense' as never, mutateExistingOnPolicyUpdate: true })).toEqual([
      'spec.mutateExistingOnPolicyUpdate',
    ]);
    expect(deprecatedPolicyFields(undefined)).toEqual([]);
  });
});
