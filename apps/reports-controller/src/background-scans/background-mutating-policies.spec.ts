import { describe, expect, it } from 'vitest';
import type { MutatingPolicyResult } from '@edict/cel-policies';
import type { RuleResponse } from '@edict/engine';
import { backgroundMutationResponse, MUTATION_NOT_APPLIED, scansMutatingPolicy } from './background-mutating-policies';

function answer(rule: RuleResponse, changes: boolean): MutatingPolicyResult {
  return {
    status: rule.status as MutatingPolicyResult['status'],
    message: rule.message,
    response: {
      policy: { kind: 'MutatingPolicy', name: 'add-team' },
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'shop' },
      rules: [rule],
      validationFailureAction: 'Audit',
      failurePolicy: 'Fail',
    },
    patches: changes ? [{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }] : [],
  };
}

describe('backgroundMutationResponse', () => {
  const pass: RuleResponse = {
    name: '',
    type: 'Mutation',
    status: 'pass',
    message: 'success',
    properties: { pod: 'pod/web' },
  };

  it('fails a passing rule whose mutations would change the object, without its properties', () => {
    expect(backgroundMutationResponse(answer(pass, true)).rules).toEqual([
      { name: '', type: 'Mutation', status: 'fail', message: MUTATION_NOT_APPLIED },
    ]);
  });

  it('keeps a pass that changes nothing, one an exception names, and skips and errors as they are', () => {
    expect(backgroundMutationResponse(answer(pass, false)).rules).toEqual([pass]);
    const excepted = { ...pass, exceptions: ['shop/allow-images'] };
    expect(backgroundMutationResponse(answer(excepted, true)).rules).toEqual([excepted]);
    const skip: RuleResponse = { name: '', type: 'Mutation', status: 'skip', message: 'skip' };
    expect(backgroundMutationResponse(answer(skip, false)).rules).toEqual([skip]);
    const error: RuleResponse = { name: 'evaluation', type: 'Mutation', status: 'error', message: 'failed' };
    expect(backgroundMutationResponse(answer(error, false)).rules).toEqual([error]);
  });
});

describe('scansMutatingPolicy', () => {
  it('leaves out a policy Kyverno generated a MutatingAdmissionPolicy from', () => {
    const policy = (status?: { generated: boolean }) => ({
      policy: {
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'MutatingPolicy',
        metadata: { name: 'a' },
        ...(status ? { status } : {}),
      },
    });
    expect(scansMutatingPolicy(policy())).toBe(true);
    expect(scansMutatingPolicy(policy({ generated: false }))).toBe(true);
    expect(scansMutatingPolicy(policy({ generated: true }))).toBe(false);
  });
});
