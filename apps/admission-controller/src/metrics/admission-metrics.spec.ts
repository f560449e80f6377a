import { describe, expect, it } from 'vitest';
import type { PolicyResponse } from '@edict/engine';
import { MetricsConfiguration } from '@edict/controller-runtime';
import { AdmissionMetrics, type LabelVocabulary } from './admission-metrics';

/** Knows the kinds and namespaces given (a policy naming them, the namespace informer holding them). */
const knowing = (kinds: string[], namespaces: string[]): LabelVocabulary => ({
  knowsKind: (kind) => kinds.includes(kind),
  knowsNamespace: (namespace) => namespaces.includes(namespace),
});
const newMetrics = (maxSeries = 2_000) =>
  new AdmissionMetrics({ vocabulary: knowing(['Pod'], ['default']), maxSeries });

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
    const metrics = newMetrics();
    metrics.recordPolicy(response('fail'), true, pod, 0.002);
    metrics.recordPolicy(response('fail'), true, pod, 0.004);
    metrics.recordPolicy(response('pass'), false, { ...pod, namespace: '' }, 0.001);
    const text = await metrics.text();
    const series = (name: string, result: string, background: string, namespace: string) =>
      new RegExp(
        `${name}\\{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="${background}",` +
          `policy_name="require-team",policy_namespace="-",resource_kind="Pod",resource_namespace="${namespace}",` +
          `resource_request_operation="create",rule_name="check-team",rule_result="${result}",rule_type="validate",` +
          `rule_execution_cause="admission_request",dry_run="false"\\} ([0-9.]+)`,
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

  it("counts MutatingPolicy evaluations under Kyverno's kyverno_mutating_policy_* names and labels", async () => {
    const metrics = newMetrics();
    const mpol = { name: 'add-owner', namespace: '', background: true, status: 'pass' };
    metrics.recordMutatingPolicy(mpol, pod, 0.002);
    metrics.recordMutatingPolicy(mpol, pod, 0.003);
    metrics.recordMutatingPolicy({ ...mpol, name: 'team', namespace: 'default', status: 'error' }, pod, 0.001);
    const text = await metrics.text();
    const series = (name: string, policy: string, namespace: string, result: string) =>
      new RegExp(
        `${name}\\{policy_background_mode="true",policy_name="${policy}",policy_namespace="${namespace}",` +
          `resource_kind="Pod",resource_namespace="default",resource_request_operation="create",` +
          `execution_cause="admission_request",result="${result}"\\} ([0-9.]+)`,
      );
    expect(text.match(series('kyverno_mutating_policy_results_total', 'add-owner', '', 'pass'))?.[1]).toBe('2');
    expect(
      text.match(series('kyverno_mutating_policy_execution_duration_seconds_count', 'add-owner', '', 'pass'))?.[1],
    ).toBe('2');
    expect(text.match(series('kyverno_mutating_policy_results_total', 'team', 'default', 'error'))?.[1]).toBe('1');
  });

  it('keeps one series per label set whatever the spelling of the failure action', async () => {
    const metrics = newMetrics();
    const audit = (action: string) =>
      ({ ...response('pass'), validationFailureAction: action }) as unknown as PolicyResponse;
    metrics.recordPolicy(audit('Audit'), true, pod, 0.001);
    metrics.recordPolicy(audit('audit'), true, pod, 0.001);
    const lines = (await metrics.text())
      .split('\n')
      .filter((line) => line.startsWith('kyverno_policy_results_total{policy_validation_mode="audit"'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith(' 2')).toBe(true);
  });

  it('counts reviews and their answer times by kind, namespace, operation and decision', async () => {
    const metrics = newMetrics();
    metrics.recordReview(pod, true, 0.003);
    metrics.recordReview(pod, true, 0.02);
    metrics.recordReview({ ...pod, namespace: '' }, false, 0.003);
    const text = await metrics.text();
    const labels = (namespace: string, allowed: boolean) =>
      `{resource_kind="Pod",resource_namespace="${namespace}",resource_request_operation="create",request_allowed="${allowed}"}`;
    expect(text).toContain(`kyverno_admission_requests_total${labels('default', true)} 2`);
    expect(text).toContain(`kyverno_admission_requests_total${labels('-', false)} 1`);
    expect(text).toContain(
      `kyverno_admission_review_duration_seconds_bucket{le="0.005",resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="true"} 1`,
    );
    expect(text).toContain(`kyverno_admission_review_duration_seconds_count${labels('default', true)} 2`);
  });

  it('labels a kind or namespace it does not know as unknown, so made-up names add no series', async () => {
    const metrics = newMetrics();
    for (let index = 0; index < 500; index += 1) {
      const made = { kind: `Kind${index}`, namespace: `ns-${index}`, operation: 'CREATE' };
      metrics.recordReview(made, true, 0.001);
      metrics.recordPolicy(response('pass'), true, made, 0.001);
    }
    metrics.recordReview({ ...pod, namespace: 'ns-7' }, true, 0.001);
    const text = await metrics.text();
    expect(text).not.toMatch(/Kind\d|ns-\d/);
    expect(text).toContain(
      'kyverno_admission_requests_total{resource_kind="unknown",resource_namespace="unknown",resource_request_operation="create",request_allowed="true"} 500',
    );
    expect(text).toContain(
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="unknown",resource_request_operation="create",request_allowed="true"} 1',
    );
    expect(text).toMatch(
      /kyverno_policy_results_total\{[^}]*resource_kind="unknown",resource_namespace="unknown"[^}]*\} 500/,
    );
  });

  it('folds label sets past the cap into one overflow series, and counts what it folded', async () => {
    const many = Array.from({ length: 10 }, (_, index) => `ns-${index}`);
    const metrics = new AdmissionMetrics({ vocabulary: knowing(['Pod'], many), maxSeries: 4 });
    for (const namespace of many) metrics.recordReview({ ...pod, namespace }, true, 0.001);
    metrics.recordReview({ ...pod, namespace: 'ns-0' }, true, 0.001); // an existing series still counts
    const text = await metrics.text();
    const series = text.split('\n').filter((line) => line.startsWith('kyverno_admission_requests_total{'));
    expect(series).toEqual([
      ...['ns-0', 'ns-1', 'ns-2', 'ns-3'].map(
        (namespace) =>
          `kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="${namespace}",resource_request_operation="create",request_allowed="true"} ${namespace === 'ns-0' ? 2 : 1}`,
      ),
      'kyverno_admission_requests_total{resource_kind="overflow",resource_namespace="overflow",resource_request_operation="overflow",request_allowed="overflow"} 6',
    ]);
    expect(text).toContain('edict_metric_series_overflow_total{metric="kyverno_admission_requests_total"} 6');
    expect(text).toContain('edict_metric_series_overflow_total{metric="kyverno_policy_results_total"} 0');
  });

  it('counts nothing from the namespaces the kyverno-metrics ConfigMap leaves out, and uses its boundaries', async () => {
    const namespaces = Array.from({ length: 50 }, (_, index) => `noisy-${index}`);
    const metrics = new AdmissionMetrics({
      vocabulary: knowing(['Pod'], [...namespaces, 'default']),
      maxSeries: 2_000,
      configuration: new MetricsConfiguration({
        namespaces: JSON.stringify({ exclude: namespaces }),
        bucketBoundaries: '0.5,1',
      }),
    });
    for (const namespace of namespaces) metrics.recordReview({ ...pod, namespace }, true, 0.001);
    metrics.recordReview(pod, true, 0.001);
    const namespaced = { ...response('fail'), policy: { kind: 'Policy', name: 'p', namespace: 'noisy-1' } };
    metrics.recordPolicy(namespaced as unknown as PolicyResponse, true, pod, 0.001);
    metrics.recordPolicy(response('fail'), true, { ...pod, namespace: 'noisy-2' }, 0.001);
    const text = await metrics.text();
    const lines = (name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));
    expect(lines('kyverno_admission_requests_total')).toEqual([
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="true"} 1',
    ]);
    // Neither the namespaced policy's results nor the ClusterPolicy's on a resource there count.
    expect(lines('kyverno_policy_results_total')).toEqual([]);
    expect(
      lines('kyverno_admission_review_duration_seconds_bucket').map((line) => /le="([^"]+)"/.exec(line)?.[1]),
    ).toEqual(['0.5', '1', '+Inf']);
  });
});
