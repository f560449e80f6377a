import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '../policy/types';
import { failureActionFor, fixedFailureActions, policyFailureAction } from './failure-action';

const audited = { matchExpressions: [{ key: 'kyverno-audit', operator: 'In' as const, values: ['true'] }] };

function policy(spec: Partial<Policy['spec']>, rules: Rule[]): Policy {
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { ...spec, rules } };
}

function rule(validate: Rule['validate']): Rule {
  return { name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate };
}

describe('failureActionFor', () => {
  const labelled = { namespace: 'labeled', namespaceLabels: { 'kyverno-audit': 'true' } };
  const plain = { namespace: 'default', namespaceLabels: {} };

  it("lets a rule's override pick namespaces by labels before the rule's own action", () => {
    const r = rule({
      failureAction: 'Enforce',
      failureActionOverrides: [{ action: 'Audit', namespaceSelector: audited }],
    });
    const p = policy({}, [r]);
    expect(failureActionFor(p, r, labelled)).toBe('Audit');
    expect(failureActionFor(p, r, plain)).toBe('Enforce');
  });

  it('applies a policy override by namespace name and selector together', () => {
    const r = rule({});
    const p = policy(
      {
        validationFailureAction: 'enforce',
        validationFailureActionOverrides: [{ action: 'audit', namespaces: ['lab*'], namespaceSelector: audited }],
      },
      [r],
    );
    expect(failureActionFor(p, r, labelled)).toBe('Audit');
    expect(failureActionFor(p, r, { namespace: 'labeled', namespaceLabels: {} })).toBe('Enforce');
    expect(failureActionFor(p, r, { ...labelled, namespace: 'other' })).toBe('Enforce');
  });

  it("prefers the rule's action to the policy's overrides, and ignores invalid override actions", () => {
    const r = rule({ failureAction: 'Audit' });
    const p = policy({ validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['*'] }] }, [r]);
    expect(failureActionFor(p, r, plain)).toBe('Audit');
    const invalid = rule({ failureActionOverrides: [{ action: 'Block' as 'Audit' }] });
    expect(failureActionFor(policy({ validationFailureAction: 'Enforce' }, [invalid]), invalid, plain)).toBe('Enforce');
  });
});

describe('policyFailureAction', () => {
  it("reports the first rule's action, else the policy's, else Audit", () => {
    const enforced = rule({ failureAction: 'Enforce' });
    expect(policyFailureAction(policy({}, [rule({}), enforced]), {})).toBe('Enforce');
    expect(policyFailureAction(policy({ validationFailureAction: 'Enforce' }, [rule({})]), {})).toBe('Enforce');
    expect(policyFailureAction(policy({}, [rule({})]), {})).toBe('Audit');
  });
});

describe('fixedFailureActions', () => {
  it('fixes the actions of a policy without overrides, as read in any namespace', () => {
    const own = rule({ failureAction: 'Audit' });
    const inherits = { ...rule({}), name: 'inherits' };
    const p = policy({ validationFailureAction: 'Enforce' }, [inherits, own]);
    const fixed = fixedFailureActions(p, [inherits, own]);
    expect(fixed.policy).toBe('Audit'); // the first rule that says one
    expect(fixed.rules.get(own)).toBe('Audit');
    expect(fixed.rules.get(inherits)).toBe('Enforce');
  });

  it('leaves what an override can change to be worked out per namespace', () => {
    const overridden = rule({ failureActionOverrides: [{ action: 'Audit', namespaces: ['lab*'] }] });
    const plain = { ...rule({ failureAction: 'Enforce' }), name: 'plain' };
    const byRule = fixedFailureActions(policy({}, [overridden, plain]), [overridden, plain]);
    expect(byRule.policy).toBeUndefined();
    expect(byRule.rules.has(overridden)).toBe(false);
    expect(byRule.rules.get(plain)).toBe('Enforce');

    const byPolicy = policy({ validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['*'] }] }, [plain]);
    expect(fixedFailureActions(byPolicy, [plain])).toEqual({ policy: undefined, rules: new Map() });
  });

  it('leaves a malformed action to fail where it is read', () => {
    const broken = rule({ failureAction: 7 as unknown as 'Audit' });
    const p = policy({}, [broken]);
    expect(fixedFailureActions(p, [broken])).toEqual({ policy: undefined, rules: new Map() });
    expect(() => failureActionFor(p, broken, {})).toThrow();
  });
});
