import { describe, expect, it } from 'vitest';
import type { Policy, RuleResponse } from '@edict/engine';
import type { EvaluatedResponse, Stage } from '@edict/kyverno-test';
import { addResponse, applyExitCode, countedErrors, emptyCounts, summaryLine } from './result-counts';

function record(
  stage: Stage,
  ruleNames: string[],
  responses: RuleResponse[],
  opts: { audit?: boolean; unscored?: boolean } = {},
): EvaluatedResponse {
  const policy = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: opts.unscored ? { 'policies.kyverno.io/scored': 'false' } : {} },
    spec: {
      rules: ruleNames.map((name) => ({
        name,
        match: {},
        [stage === 'validate' ? 'validate' : stage === 'mutate' ? 'mutate' : 'generate']: {},
      })),
    },
  } as unknown as Policy;
  return {
    policy,
    compiled: { policy } as EvaluatedResponse['compiled'],
    resource: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' } },
    stage,
    response: {
      policy: { name: 'p', kind: 'ClusterPolicy' },
      resource: { apiVersion: 'v1', kind: 'Pod', name: 'a' },
      rules: responses,
      validationFailureAction: opts.audit ? 'Audit' : 'Enforce',
    },
  };
}
const r = (name: string, status: RuleResponse['status']): RuleResponse => ({
  name,
  type: 'Validation',
  status,
  message: '',
});

describe('apply result counts', () => {
  it('counts the validate rules that answered, by status; rules that did not match are not counted', () => {
    const counts = emptyCounts();
    const responses = [r('a', 'skip'), r('b', 'error'), r('c', 'pass')];
    addResponse(counts, record('validate', ['a', 'autogen-a', 'b', 'c'], responses), false);
    addResponse(counts, record('validate', ['a'], []), false);
    expect(counts).toEqual({ pass: 1, fail: 0, warn: 0, error: 1, skip: 1 });
  });

  it('turns failures into warnings for unscored policies, and for Audit policies with --audit-warn', () => {
    const counts = emptyCounts();
    addResponse(counts, record('validate', ['a'], [r('a', 'fail')], { unscored: true }), false);
    addResponse(counts, record('validate', ['a'], [r('a', 'fail')], { audit: true }), true);
    addResponse(counts, record('validate', ['a'], [r('a', 'fail')], { audit: true }), false);
    expect(counts).toEqual({ pass: 0, fail: 1, warn: 2, error: 0, skip: 0 });
  });

  it('counts mutate and generate rules', () => {
    const counts = emptyCounts();
    addResponse(counts, record('mutate', ['m', 'n', 'o'], [r('m', 'pass'), r('o', 'skip')]), false);
    addResponse(counts, record('generate', ['g', 'h'], [r('g', 'fail')]), false);
    expect(counts).toEqual({ pass: 1, fail: 1, warn: 0, error: 0, skip: 1 });
  });

  it('names exactly the responses counted as errors, so each counted error can be explained', () => {
    const records = [
      record('validate', ['a', 'b', 'c'], [r('a', 'error'), r('b', 'pass'), r('c', 'error')]),
      record('validate', ['a'], [r('a', 'error'), r('not-a-rule-of-the-policy', 'error')]),
      record('mutate', ['m', 'n'], [r('m', 'error'), r('n', 'warn')]),
      record('generate', ['g'], [r('g', 'error')]), // generate counts it as a failure
    ];
    const counts = emptyCounts();
    for (const entry of records) addResponse(counts, entry, false);
    const errors = records.flatMap((entry) => countedErrors(entry).map((response) => response.name));
    expect(errors).toEqual(['a', 'c', 'a', 'm']);
    expect(counts.error).toBe(errors.length);
  });

  it('exits 1 on failures or errors, with the warn exit code on warnings only, else 0', () => {
    expect(applyExitCode({ ...emptyCounts(), fail: 1, warn: 1 }, 3)).toBe(1);
    expect(applyExitCode({ ...emptyCounts(), error: 1 }, 3)).toBe(1);
    expect(applyExitCode({ ...emptyCounts(), warn: 2 }, 3)).toBe(3);
    expect(applyExitCode({ ...emptyCounts(), warn: 2 }, 0)).toBe(0);
    expect(applyExitCode({ ...emptyCounts(), pass: 2 }, 3)).toBe(0);
  });

  it('prints Kyverno’s summary line', () => {
    expect(summaryLine({ pass: 1, fail: 2, warn: 3, error: 4, skip: 5 })).toBe(
      'pass: 1, fail: 2, warn: 3, error: 4, skip: 5 ',
    );
  });
});
