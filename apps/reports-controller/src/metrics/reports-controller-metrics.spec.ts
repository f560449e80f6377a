import { describe, expect, it } from 'vitest';
import { compileMutatingPolicy, evaluateMutatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { ReportsControllerMetrics } from './reports-controller-metrics';

describe('ReportsControllerMetrics', () => {
  it("counts a MutatingPolicy a background scan applied under Kyverno's mutating policy metrics", async () => {
    const compiled = compileMutatingPolicy({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'add-team', resourceVersion: '1' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' },
          },
        ],
      },
    } as unknown as KubeObject);
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' } };
    const result = await evaluateMutatingPolicy(
      compiled,
      { request: { operation: 'CREATE', resource: pod }, resource: { group: '', version: 'v1', resource: 'pods' } },
      { ports: {} },
    );
    const metrics = new ReportsControllerMetrics();
    metrics.mutatingPolicyResult(compiled, result!, 0.002);
    const counter = await metrics.registry.getSingleMetric('kyverno_mutating_policy_results_total')!.get();
    expect(counter.values).toEqual([
      {
        value: 1,
        labels: {
          policy_background_mode: 'true',
          policy_name: 'add-team',
          policy_namespace: '',
          resource_kind: 'Pod',
          resource_namespace: 'shop',
          resource_request_operation: 'create',
          execution_cause: 'background_scan',
          result: 'pass',
        },
      },
    ]);
    expect(metrics.registry.getSingleMetric('kyverno_mutating_policy_execution_duration_seconds')).toBeDefined();
  });
});
