import { describe, expect, it } from 'vitest';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { admissionEvents } from './admission-events';

const rule = (
  name: string,
  status: RuleResponse['status'],
  message = `${name} ${status}`,
  extra = {},
): RuleResponse => ({
  name,
  type: 'Validation',
  status,
  message,
  ...extra,
});
const response = (rules: RuleResponse[], policy = 'require-team', namespace?: string): PolicyResponse => ({
  policy: { name: policy, kind: namespace ? 'Policy' : 'ClusterPolicy', ...(namespace ? { namespace } : {}) },
  resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' },
  rules,
  validationFailureAction: 'Enforce',
});

describe('admissionEvents', () => {
  it('blocked: one PolicyViolation per failing rule on the policy, none on the resource', () => {
    const events = admissionEvents([response([rule('a', 'fail', 'label required'), rule('b', 'pass')])], {
      blocked: true,
      policyIdentity: () => ({ uid: 'p-uid', resourceVersion: '4' }),
    });
    expect(events).toEqual([
      {
        regarding: {
          apiVersion: 'kyverno.io/v1',
          kind: 'ClusterPolicy',
          name: 'require-team',
          uid: 'p-uid',
          resourceVersion: '4',
        },
        related: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' },
        type: 'Warning',
        reason: 'PolicyViolation',
        action: 'Resource Blocked',
        note: 'Pod default/web: [a] fail (blocked); label required',
      },
    ]);
  });

  it('admitted: the policy event per failing rule and a resource event per rule of that response', () => {
    const events = admissionEvents([response([rule('a', 'fail', 'bad'), rule('b', 'pass', 'ok')])], {
      blocked: false,
      resourceUid: 'pod-uid',
    });
    expect(events.map((e) => [e.regarding.kind, e.action, e.note])).toEqual([
      ['ClusterPolicy', 'Resource Passed', 'Pod default/web: [a] fail; bad'],
      ['Pod', 'Resource Passed', 'policy require-team/a fail: bad'],
      ['Pod', 'Resource Passed', 'policy require-team/b pass: ok'],
    ]);
    expect(events[1]!.regarding).toMatchObject({ uid: 'pod-uid', namespace: 'default' });
  });

  it('errors count as violations; a message-less rule has no `; ` tail', () => {
    const [event] = admissionEvents([response([rule('a', 'error', '')])], { blocked: true });
    expect(event!.note).toBe('Pod default/web: [a] error (blocked)');
  });

  it('passing responses give PolicyApplied (Normal), exceptions PolicySkipped on policy and exception', () => {
    const events = admissionEvents(
      [
        response([rule('a', 'pass')], 'fine'),
        response(
          [rule('a', 'skip', 'rule skipped due to policy exception', { exceptions: ['shop/legacy'] })],
          'local',
          'shop',
        ),
        response([], 'nothing'),
      ],
      { blocked: false },
    );
    expect(events.map((e) => [e.type, e.reason, e.regarding.kind, e.note])).toEqual([
      ['Normal', 'PolicyApplied', 'ClusterPolicy', 'Pod default/web: pass'],
      [
        'Normal',
        'PolicySkipped',
        'Policy',
        'resource Pod/default/web was skipped from rule a due to policy exception shop/legacy',
      ],
      [
        'Normal',
        'PolicySkipped',
        'PolicyException',
        'resource Pod/default/web was skipped from policy rule shop/local/a',
      ],
    ]);
  });

  it("a policy that only mutates is applied as 'Resource Mutated'", () => {
    const events = admissionEvents([response([rule('add-foo', 'pass')], 'add-labels'), response([rule('a', 'pass')])], {
      blocked: false,
      onlyMutates: (applied) => applied.policy.name === 'add-labels',
    });
    expect(events.map((e) => [e.reason, e.regarding.name, e.action, e.note])).toEqual([
      ['PolicyApplied', 'add-labels', 'Resource Mutated', 'Pod default/web is successfully mutated'],
      ['PolicyApplied', 'require-team', 'Resource Passed', 'Pod default/web: pass'],
    ]);
  });

  it('leaves out omitted reasons', () => {
    const events = admissionEvents([response([rule('a', 'pass')]), response([rule('b', 'fail')], 'p2')], {
      blocked: false,
      omit: ['PolicyApplied', 'PolicySkipped'],
    });
    expect(events.every((e) => e.reason === 'PolicyViolation')).toBe(true);
    expect(events).toHaveLength(2);
  });

  it("keeps success events only with the ConfigMap's generateSuccessEvents, filtered by successEventActions", () => {
    const responses = [response([rule('add-foo', 'pass')], 'add-labels'), response([rule('a', 'pass')])];
    const withSettings = (enabled: boolean, actions: string[]) =>
      admissionEvents(responses, {
        blocked: false,
        onlyMutates: (applied) => applied.policy.name === 'add-labels',
        successEvents: { enabled, actions },
      }).map((e) => `${e.regarding.name}:${e.action}`);
    expect(withSettings(false, [])).toEqual([]);
    expect(withSettings(false, ['Resource Mutated'])).toEqual([]);
    expect(withSettings(true, [])).toEqual(['add-labels:Resource Mutated', 'require-team:Resource Passed']);
    expect(withSettings(true, ['Resource Mutated'])).toEqual(['add-labels:Resource Mutated']);
    // Violations are never success events.
    const violation = admissionEvents([response([rule('b', 'fail')], 'p2')], {
      blocked: false,
      successEvents: { enabled: false, actions: [] },
    });
    expect(violation.map((e) => e.reason)).toEqual(['PolicyViolation', 'PolicyViolation']);
  });
});
