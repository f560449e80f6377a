import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy/types';
import { policyReportResult } from './report-result';
import type { RuleResponse } from './types';

function policy(annotations: Record<string, string> = {}, namespace?: string): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: namespace ? 'Policy' : 'ClusterPolicy',
    metadata: { name: 'require-team', ...(namespace ? { namespace } : {}), annotations },
    spec: { rules: [] },
  };
}

function rule(overrides: Partial<RuleResponse> = {}): RuleResponse {
  return { name: 'check-team', type: 'Validation', status: 'fail', message: 'team is required', ...overrides };
}

const now = new Date('2026-11-26T10:00:00.750Z');

describe('policyReportResult', () => {
  it('writes the policy key, rule, result, message and whole seconds, and only the optional fields set', () => {
    expect(policyReportResult({ key: 'shop/require-team', policy: policy({}, 'shop') }, rule(), now)).toEqual({
      source: 'kyverno',
      policy: 'shop/require-team',
      rule: 'check-team',
      result: 'fail',
      scored: true,
      message: 'team is required',
      timestamp: { seconds: 1795687200, nanos: 0 },
    });
  });

  it('reports an unscored failure as a warning, and other statuses as they are', () => {
    const unscored = { key: 'require-team', policy: policy({ 'policies.kyverno.io/scored': 'false' }) };
    expect(policyReportResult(unscored, rule(), now)).toMatchObject({ result: 'warn', scored: false });
    expect(policyReportResult(unscored, rule({ status: 'error' }), now)).toMatchObject({
      result: 'error',
      scored: false,
    });
  });

  it('takes category and severity from the annotations, and only the severities Kyverno knows', () => {
    const annotated = (severity: string) => ({
      key: 'require-team',
      policy: policy({ 'policies.kyverno.io/category': 'Best Practices', 'policies.kyverno.io/severity': severity }),
    });
    expect(policyReportResult(annotated('medium'), rule(), now)).toMatchObject({
      category: 'Best Practices',
      severity: 'medium',
    });
    const unknown = policyReportResult(annotated('Medium'), rule(), now);
    expect(unknown.category).toBe('Best Practices');
    expect(unknown).not.toHaveProperty('severity');
  });

  it("carries the rule's properties and names the exceptions that skipped it", () => {
    const skipped = rule({ status: 'skip', properties: { note: 'x' }, exceptions: ['shop/allow-web', 'global'] });
    const result = policyReportResult({ key: 'require-team', policy: policy() }, skipped, now);
    expect(result.properties).toEqual({ note: 'x', exceptions: 'allow-web,global' });
    expect(skipped.properties).toEqual({ note: 'x' });
  });

  it('names the resource when given, leaving out its empty fields', () => {
    const result = policyReportResult({ key: 'require-team', policy: policy() }, rule(), now, {
      apiVersion: 'v1',
      kind: 'Namespace',
      name: 'shop',
      namespace: '',
      uid: undefined,
    });
    expect(result.resources).toEqual([{ apiVersion: 'v1', kind: 'Namespace', name: 'shop' }]);
  });
});
