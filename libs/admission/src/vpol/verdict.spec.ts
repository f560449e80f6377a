import type { CompiledValidatingPolicy } from '@edict/cel-policies';
import type { PolicyResponse, RuleResponse, ValidationAction } from '@edict/engine';
import { describe, expect, it } from 'vitest';
import { parseValidatingPolicyPath, validatingPoliciesForPath } from './select';
import { admissionVerdict } from './policy-review';
import type { ValidatingPolicyEvaluation } from './validating-policy-admission';

function compiled(
  name: string,
  options: Partial<
    Pick<CompiledValidatingPolicy, 'failurePolicy' | 'validationActions' | 'admission' | 'namespace'>
  > = {},
): CompiledValidatingPolicy {
  const namespaced = options.namespace !== undefined;
  return {
    policy: {
      apiVersion: 'policies.kyverno.io/v1',
      kind: namespaced ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy',
      metadata: { name },
    },
    kind: namespaced ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy',
    name,
    ...(namespaced ? { namespace: options.namespace } : {}),
    validationActions: options.validationActions ?? ['Deny'],
    failurePolicy: options.failurePolicy ?? 'Fail',
    admission: options.admission ?? true,
    background: true,
    mode: 'Kubernetes',
    matchConstraints: {},
    matchConditions: [],
    autogen: [],
    autogenStatus: {},
  };
}

const failed = (message: string): RuleResponse => ({ name: 'rule', type: 'Validation', status: 'fail', message });
const errored = (message: string, exceptions?: string[]): RuleResponse => ({
  name: 'rule',
  type: 'Validation',
  status: 'error',
  message,
  ...(exceptions ? { exceptions } : {}),
});
const passed: RuleResponse = { name: 'rule', type: 'Validation', status: 'pass', message: 'success' };

function evaluation(
  policy: CompiledValidatingPolicy,
  rules: RuleResponse[],
  extra: Partial<PolicyResponse> = {},
): ValidatingPolicyEvaluation {
  return {
    compiled: policy,
    response: {
      policy: { name: policy.name, kind: policy.kind },
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      rules,
      validationFailureAction: policy.validationActions.includes('Deny') ? 'Enforce' : 'Audit',
      ...extra,
    },
  };
}

const actions = (...list: ValidationAction[]) => ({ validationActions: list });

describe('admissionVerdict (Kyverno vpol handler)', () => {
  it('denies a failed validation under Deny with "Policy <name> failed: <message>"', () => {
    const verdict = admissionVerdict([evaluation(compiled('labels'), [failed('Deployment labels must be env=prod')])]);
    expect(verdict.errors).toEqual(['Policy labels failed: Deployment labels must be env=prod']);
    expect(verdict.warnings).toEqual([]);
  });

  it('denies an error under failurePolicy Fail, admits it under Ignore, and never hides a failed validation', () => {
    const error = errored('no such key: team');
    expect(admissionVerdict([evaluation(compiled('p'), [error])]).errors).toEqual([
      'Policy p error: no such key: team',
    ]);
    expect(admissionVerdict([evaluation(compiled('p', { failurePolicy: 'Ignore' }), [error])]).errors).toEqual([]);
    expect(
      admissionVerdict([evaluation(compiled('p', { failurePolicy: 'Ignore' }), [failed('team label is required')])])
        .errors,
    ).toEqual(['Policy p failed: team label is required']);
  });

  it('denies under Ignore when an exception could not be decided (fails closed)', () => {
    const refused = errored('failed to evaluate compensating controls of policy exception default/polex', [
      'default/polex',
    ]);
    expect(admissionVerdict([evaluation(compiled('p', { failurePolicy: 'Ignore' }), [refused])]).errors).toHaveLength(
      1,
    );
  });

  it('words only the enforced errors when an Ignore and a Fail policy both error', () => {
    const verdict = admissionVerdict([
      evaluation(compiled('ignored', { failurePolicy: 'Ignore' }), [errored('x')]),
      evaluation(compiled('enforced'), [errored('y')]),
    ]);
    expect(verdict.errors).toEqual(['Policy enforced error: y']);
  });

  it('turns failures and errors into warnings under Warn, also with Ignore', () => {
    const warn = compiled('w', { failurePolicy: 'Ignore', ...actions('Deny', 'Warn') });
    const verdict = admissionVerdict([evaluation(warn, [errored('boom')])]);
    expect(verdict).toMatchObject({ errors: [], warnings: ['Policy w error: boom'] });
    const warnOnly = admissionVerdict([evaluation(compiled('w', actions('Warn')), [failed('needs a team')])]);
    expect(warnOnly).toMatchObject({ errors: [], warnings: ['Policy w failed: needs a team'] });
  });

  it('never blocks nor warns for Audit only, and says nothing about passes', () => {
    const audit = compiled('a', actions('Audit'));
    expect(admissionVerdict([evaluation(audit, [failed('x'), errored('y')])])).toEqual({
      errors: [],
      warnings: [],
      auditAnnotations: {},
    });
    expect(admissionVerdict([evaluation(compiled('p'), [passed])]).errors).toEqual([]);
  });

  it("follows the response's own actions, words warnings itself, and passes on the audit annotations", () => {
    const verdict = admissionVerdict([
      evaluation(compiled('p'), [failed('x')], {
        validationActions: ['Audit'],
        warnings: ['a warning from the engine'],
        auditAnnotations: { 'p/reason': 'why' },
      }),
    ]);
    expect(verdict).toEqual({ errors: [], warnings: [], auditAnnotations: { 'p/reason': 'why' } });
  });
});

describe('ValidatingPolicy webhook paths', () => {
  it("parses Kyverno's paths and refuses anything else", () => {
    expect(parseValidatingPolicyPath('fail')).toEqual({ failurePolicy: 'Fail' });
    expect(parseValidatingPolicyPath('ignore/')).toEqual({ failurePolicy: 'Ignore' });
    expect(parseValidatingPolicyPath('fail/finegrained/check-labels')).toEqual({
      failurePolicy: 'Fail',
      names: ['check-labels'],
    });
    expect(parseValidatingPolicyPath('check-labels')).toEqual({ names: ['check-labels'] });
    expect(parseValidatingPolicyPath('fail/other/x')).toBeUndefined();
    expect(parseValidatingPolicyPath('fail/finegrained')).toBeUndefined();
    expect(parseValidatingPolicyPath('fail/finegrained/Not_A_Name')).toBeUndefined();
  });

  it('serves admission-enabled policies of the path, fine-grained names only, namespaced ones in their namespace', () => {
    const policies = [
      compiled('b-fail'),
      compiled('a-ignore', { failurePolicy: 'Ignore' }),
      compiled('off', { admission: false }),
      compiled('local', { namespace: 'shop' }),
    ];
    const names = (list: CompiledValidatingPolicy[]) => list.map((policy) => policy.name);
    expect(names(validatingPoliciesForPath(policies, { failurePolicy: 'Fail' }, 'shop'))).toEqual(['b-fail', 'local']);
    expect(names(validatingPoliciesForPath(policies, { failurePolicy: 'Fail' }, 'other'))).toEqual(['b-fail']);
    expect(names(validatingPoliciesForPath(policies, { failurePolicy: 'Fail' }, ''))).toEqual(['b-fail']);
    expect(names(validatingPoliciesForPath(policies, { failurePolicy: 'Ignore' }, 'shop'))).toEqual(['a-ignore']);
    expect(names(validatingPoliciesForPath(policies, {}, 'shop'))).toEqual(['a-ignore', 'b-fail', 'local']);
    expect(names(validatingPoliciesForPath(policies, { failurePolicy: 'Fail', names: ['local'] }, 'shop'))).toEqual([
      'local',
    ]);
  });
});
