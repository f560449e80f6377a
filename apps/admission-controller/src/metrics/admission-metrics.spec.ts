import { describe, expect, it } from 'vitest';
import type { PolicyResponse } from '@edict/engine';
import { AdmissionMetrics } from './admission-metrics';

function response(status: 'pass' | 'fail'): PolicyResponse {
  return {
    policy: { kind: 'ClusterPolicy', name: 'require-team' },
    resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' },
    validationFailureAction: 'Enforce',
    rules: [{ name: 'check-team', type: 'Validation', status, message: '' }],
  } as unknown as PolicyResponse;
}

describe('AdmissionMetrics', () => {
  const pod = { kind: 'Pod', namespace: 'default', operation: 'CREATE' };

  it('counts each rule result under its own label set, with the evaluation time', async () => {
    const metrics = new AdmissionMetrics();
    metrics.recordPolicy(response('fail'), true, pod, 0.002);
    metrics.recordPolicy(response('fail'), true, pod, 0.004);
    metrics.recordPolicy(response('pass'), false, { ...pod, namespace: '' }, 0.001);
    const text = await metrics.text();
    const series = (name: string, result: string, background: string, namespace: string) =>
      new RegExp(
        `${name}\\{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="${background}",` +
          `policy_name="require-team",policy_namespace="-",resource_kind="Pod",resource_namespace="${namespace}",` +
          `resource_request_operation="create",rule_name="check-team",rule_result="${result}",rule_type="validate",` +
          `rule_execution_cause="admission_request"\\} ([0-9.]+)`,
      );
    expect(text.match(series('kyverno_policy_results_total', 'fail', 'true', 'default'))?.[1]).toBe('2');
    expect(text.match(series('kyverno_policy_execution_duration_seconds_count', 'fail', 'true', 'default'))?.[1]).toBe(
      '2',
    );
    expect(
      Number(text.match(series('kyverno_policy_execution_duration_seconds_sum', 'fail', 'true', 'default'))?.[1]),
    ).toBeCloseTo(0.006);
    expect(text.match(series('kyverno_policy_results_total', 'pass', 'false', '-'))?.[1]).toBe('1');
  });
});
