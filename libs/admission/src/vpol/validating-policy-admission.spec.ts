import { compileValidatingPolicy, type CompiledValidatingPolicy } from '@edict/cel-policies';
import { EvaluationDeadlineExceeded, type KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { podCreateReview } from '../testing/fixtures';
import { validatingPolicyAdmission, type ValidatingPolicyAdmissionOptions } from './validating-policy-admission';

const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;
const options: ValidatingPolicyAdmissionOptions = {
  context: { ports: {} },
  now: () => new Date('2026-11-20T10:12:45.250Z'),
};

/** A ValidatingPolicy on Pods requiring the `owner` label. */
function requireOwner(name: string, spec: Record<string, unknown> = {}, namespace?: string): CompiledValidatingPolicy {
  return compileValidatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy',
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      annotations: { 'policies.kyverno.io/category': 'Best Practices', 'policies.kyverno.io/severity': 'high' },
    },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
        ],
      },
      validations: [
        {
          expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
          message: 'Pods need an owner label',
        },
      ],
      ...spec,
    },
  } as unknown as KubeObject);
}

function request(change: (r: AdmissionRequest) => void = () => undefined) {
  const review = podCreateReview();
  change(review.request);
  return toResourceRequest(review.request);
}

const labelled = (r: AdmissionRequest) =>
  ((r.object as { metadata: { labels: Record<string, string> } }).metadata.labels.owner = 'ana');

describe('validatingPolicyAdmission', () => {
  it("denies a Pod under a Deny policy with Kyverno's message and reports nothing for it", async () => {
    const outcome = await validatingPolicyAdmission(request(), [requireOwner('owner')], {}, config, options);
    expect(outcome.decision).toEqual({ allowed: false, message: 'Policy owner failed: Pods need an owner label' });
    expect(outcome.blocked).toBe(true);
    expect(outcome.reportResults).toEqual([]);
    expect(outcome.evaluations.map(({ response }) => response.rules.map((rule) => rule.status))).toEqual([['fail']]);
  });

  it('admits a Pod that satisfies the policy, and reports the pass', async () => {
    const outcome = await validatingPolicyAdmission(request(labelled), [requireOwner('owner')], {}, config, options);
    expect(outcome.decision).toEqual({ allowed: true });
    expect(outcome.reportResults).toHaveLength(1);
    expect(outcome.reportResults[0]).toMatchObject({
      source: 'KyvernoValidatingPolicy',
      policy: 'owner',
      result: 'pass',
      scored: true,
      category: 'Best Practices',
      severity: 'high',
      properties: { process: 'background scan' },
      timestamp: { seconds: 1795169565, nanos: 0 },
      resource: { apiVersion: 'v1', kind: 'Pod', namespace: 'shop', uid: '5f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f' },
      type: 'Validation',
    });
  });

  it('warns under Warn and only reports under Audit', async () => {
    const warn = await validatingPolicyAdmission(
      request(),
      [
        requireOwner('warned', { validationActions: ['Warn'] }),
        requireOwner('audited', { validationActions: ['Audit'] }),
      ],
      {},
      config,
      options,
    );
    expect(warn.decision).toEqual({ allowed: true, warnings: ['Policy warned failed: Pods need an owner label'] });
    expect(warn.reportResults.map((result) => [result.policy, result.result])).toEqual([
      ['audited', 'fail'],
      ['warned', 'fail'],
    ]);
  });

  it('serves only the policies of its path: failure policy, fine-grained names, the namespaced ones of the namespace', async () => {
    const policies = [
      requireOwner('ignored', { failurePolicy: 'Ignore' }),
      requireOwner('local', {}, 'shop'),
      requireOwner('elsewhere', {}, 'other'),
    ];
    const fail = await validatingPolicyAdmission(request(), policies, { failurePolicy: 'Fail' }, config, options);
    expect(fail.decision.message).toBe('Policy local failed: Pods need an owner label');
    const ignore = await validatingPolicyAdmission(request(), policies, { failurePolicy: 'Ignore' }, config, options);
    expect(ignore.decision.message).toBe('Policy ignored failed: Pods need an owner label');
    const named = await validatingPolicyAdmission(request(), policies, { names: ['elsewhere'] }, config, options);
    expect(named.decision).toEqual({ allowed: true });
  });

  it('denies an evaluation error under failurePolicy Fail and admits it under Ignore', async () => {
    const broken = (failurePolicy: string) =>
      requireOwner(`broken-${failurePolicy.toLowerCase()}`, {
        failurePolicy,
        validations: [{ expression: "object.metadata.labels['missing'] == 'x'" }],
      });
    const fail = await validatingPolicyAdmission(request(), [broken('Fail')], {}, config, options);
    expect(fail.decision.allowed).toBe(false);
    expect(fail.decision.message).toMatch(/^Policy broken-fail error: /);
    const ignore = await validatingPolicyAdmission(request(), [broken('Ignore')], {}, config, options);
    expect(ignore.decision.allowed).toBe(true);
    expect(ignore.reportResults.map((result) => result.result)).toEqual(['error']);
  });

  it('skips filtered requests, leaves admission-disabled policies to the scans, and writes no reports on dry runs', async () => {
    const kubeSystem = request((r) => {
      r.namespace = 'kube-system';
      (r.object as { metadata: { namespace: string } }).metadata.namespace = 'kube-system';
    });
    const filtered = await validatingPolicyAdmission(kubeSystem, [requireOwner('owner')], {}, config, options);
    expect(filtered).toMatchObject({ decision: { allowed: true }, filtered: 'namespace kube-system is excluded' });
    const scansOnly = requireOwner('scans', { evaluation: { admission: { enabled: false } } });
    expect((await validatingPolicyAdmission(request(), [scansOnly], {}, config, options)).evaluations).toEqual([]);
    const dry = await validatingPolicyAdmission(
      request((r) => (r.dryRun = true)),
      [requireOwner('audited', { validationActions: ['Audit'] })],
      {},
      config,
      options,
    );
    expect(dry).toMatchObject({ dryRun: true, reportResults: [] });
    expect(dry.evaluations).toHaveLength(1);
  });

  it('stops at a passed deadline, for the caller to answer by failure policy', async () => {
    const passed = { expired: () => true };
    await expect(
      validatingPolicyAdmission(request(), [requireOwner('owner')], {}, config, { ...options, deadline: passed }),
    ).rejects.toBeInstanceOf(EvaluationDeadlineExceeded);
  });
});
