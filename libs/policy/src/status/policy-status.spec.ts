import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '@edict/engine';
import { PolicyStore } from '../cache/policy-store';
import { labelRule, policyOf } from '../testing';
import {
  desiredPolicyStatus,
  MAX_CONDITION_MESSAGE,
  policyReadiness,
  statusMatches,
  type PolicyEntry,
  type WebhookPublication,
} from './policy-status';

const T0 = new Date('2026-11-01T10:00:00.123Z');
const T1 = new Date('2026-11-01T11:00:00.000Z');

function withGeneration(policy: Policy, generation: number, status?: unknown): Policy {
  return {
    ...policy,
    metadata: { ...policy.metadata, generation } as Policy['metadata'],
    ...(status ? { status } : {}),
  } as Policy;
}

function entryOf(policy: Policy): PolicyEntry {
  const result = new PolicyStore().upsertPolicy(policy);
  if (result.status === 'valid') return { valid: result.policy };
  if (result.status === 'invalid') return { invalid: result.invalid };
  throw new Error('unchanged');
}

function published(entries: Array<[string, number | undefined]>, unresolved: Array<[string, string[]]> = []) {
  return { policies: new Map(entries), unresolvedKinds: new Map(unresolved) } satisfies WebhookPublication;
}

const podPolicy = withGeneration(policyOf('require-team', [labelRule('check-team', ['Pod'])]), 1);

describe('policyReadiness', () => {
  it('is ready once the publication carries the policy at its generation', () => {
    expect(policyReadiness(entryOf(podPolicy), published([['require-team', 1]]))).toEqual({ ready: true });
  });

  it('is not ready before any publication, or when the publication carried an older generation', () => {
    const waiting = { ready: false, message: 'Not Ready: the webhook configurations do not include the policy yet' };
    expect(policyReadiness(entryOf(podPolicy), undefined)).toEqual(waiting);
    expect(policyReadiness(entryOf(podPolicy), published([['other', 1]]))).toEqual(waiting);
    expect(policyReadiness(entryOf(withGeneration(podPolicy, 2)), published([['require-team', 1]]))).toEqual({
      ...waiting,
      pending: true,
    });
  });

  it('treats a generation the server does not track as any generation', () => {
    const untracked = policyOf('require-team', [labelRule('check-team', ['Pod'])]);
    expect(policyReadiness(entryOf(untracked), published([['require-team', 4]]))).toEqual({ ready: true });
    expect(policyReadiness(entryOf(podPolicy), published([['require-team', undefined]]))).toEqual({ ready: true });
  });

  it('names the kinds the webhooks could not carry', () => {
    const readiness = policyReadiness(
      entryOf(podPolicy),
      published([['require-team', 1]], [['require-team', ['Widget', 'example.com/v1/Gadget']]]),
    );
    expect(readiness).toEqual({
      ready: false,
      message:
        'Not Ready: API discovery did not answer for these kinds, the webhooks may miss them: Widget, example.com/v1/Gadget',
    });
  });

  it('says why an invalid policy is not used', () => {
    const invalid = policyOf('bad', [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] } } as Rule]);
    const readiness = policyReadiness(entryOf(invalid), published([['bad', undefined]]));
    expect(readiness.ready).toBe(false);
    expect(!readiness.ready && readiness.message).toMatch(
      /^Not Ready: the policy is invalid and not enforced: spec\.rules\[0\]: No operation defined in the rule 'r'/,
    );
  });

  it('says what stays enforced for an invalid Enforce policy: its last valid version, or its Enforce validate rules', () => {
    const rules = [labelRule('check-team', ['Pod'])];
    const untyped = { name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] } } as Rule;
    const enforce = { validationFailureAction: 'Enforce' as const };
    const store = new PolicyStore();
    const valid = policyOf('guard', rules, enforce);
    store.upsertPolicy({ ...valid, metadata: { ...valid.metadata, resourceVersion: '41', generation: 3 } } as Policy);
    const broken = policyOf('guard', [...rules, untyped], enforce);
    const held = store.upsertPolicy({ ...broken, metadata: { ...broken.metadata, resourceVersion: '42' } });
    if (held.status !== 'invalid') throw new Error('expected invalid');
    expect(policyReadiness({ invalid: held.invalid }, undefined)).toEqual({
      ready: false,
      message:
        'Not Ready: the policy is invalid; its last valid version (resourceVersion 41, generation 3) is still enforced ' +
        "until the policy is fixed or deleted: spec.rules[1]: No operation defined in the rule 'r'." +
        '(supported operations: mutate,validate,generate,verifyImages)',
    });
    const readiness = policyReadiness(entryOf(broken), undefined);
    expect(!readiness.ready && readiness.message).toMatch(
      /^Not Ready: the policy is invalid; no valid version of it is known, so its Enforce validate rules are enforced as written until the policy is fixed or deleted: spec\.rules\[1\]: /,
    );
  });
});

describe('desiredPolicyStatus', () => {
  it("writes Kyverno's shape for a ready policy: condition, autogen rules, rule count", () => {
    const status = desiredPolicyStatus(podPolicy, { ready: true }, T0);
    expect(status.conditions).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Succeeded',
        message: 'Ready',
        lastTransitionTime: '2026-11-01T10:00:00Z',
      },
    ]);
    expect(status.rulecount).toEqual({ validate: 1, generate: 0, mutate: 0, verifyimages: 0 });
    expect(status.validatingadmissionpolicy).toEqual({ generated: false, message: '' });
    const rules = status.autogen.rules ?? [];
    expect(rules.map((r) => r.name)).toEqual(['autogen-check-team', 'autogen-cronjob-check-team']);
    expect(rules[0]!.match).toEqual({
      any: [
        {
          resources: {
            kinds: [
              'apps/v1/DaemonSet',
              'apps/v1/Deployment',
              'batch/v1/Job',
              'apps/v1/ReplicaSet',
              'v1/ReplicationController',
              'apps/v1/StatefulSet',
            ],
          },
        },
      ],
    });
    expect(rules[1]!.match).toEqual({ any: [{ resources: { kinds: ['batch/v1/CronJob'] } }] });
    expect(rules[1]!.validate).toMatchObject({
      pattern: { spec: { jobTemplate: { spec: { template: { metadata: { labels: { team: '?*' } } } } } } },
    });
  });

  it('writes `autogen: {}` when autogen does not apply (several kinds with Pod, or the annotation says none)', () => {
    const mixed = policyOf('mixed', [labelRule('r', ['Pod', 'Deployment'])]);
    expect(desiredPolicyStatus(mixed, { ready: true }, T0).autogen).toEqual({});
    const none = {
      ...podPolicy,
      metadata: { ...podPolicy.metadata, annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    };
    expect(desiredPolicyStatus(none, { ready: true }, T0).autogen).toEqual({});
  });

  it('counts each type of the policy’s own rules, not the autogen ones', () => {
    const rules = [
      labelRule('v', ['Pod']),
      { name: 'm', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] }, mutate: { patchStrategicMerge: {} } },
      {
        name: 'g',
        match: { any: [{ resources: { kinds: ['Namespace'] } }] },
        generate: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'y', data: {} },
      },
      { name: 'i', match: { any: [{ resources: { kinds: ['Pod'] } }] }, verifyImages: [{ imageReferences: ['*'] }] },
      { name: 'empty-validate', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: {} },
    ] as Rule[];
    expect(desiredPolicyStatus(policyOf('p', rules), { ready: true }, T0).rulecount).toEqual({
      validate: 1,
      generate: 1,
      mutate: 1,
      verifyimages: 1,
    });
  });

  it('writes Failed with the message when not ready, cutting long messages', () => {
    const status = desiredPolicyStatus(podPolicy, { ready: false, message: 'Not Ready: x'.padEnd(5000, 'x') }, T0);
    expect(status.conditions[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'Failed' });
    expect(status.conditions[0]!.message).toHaveLength(MAX_CONDITION_MESSAGE);
    expect(status.conditions[0]!.message.endsWith('...')).toBe(true);
  });

  it('moves lastTransitionTime only when the Ready status flips', () => {
    const first = desiredPolicyStatus(podPolicy, { ready: false, message: 'Not Ready: waiting' }, T0);
    const same = desiredPolicyStatus(withGeneration(podPolicy, 1, first), { ready: false, message: 'other' }, T1);
    expect(same.conditions[0]).toMatchObject({ message: 'other', lastTransitionTime: '2026-11-01T10:00:00Z' });
    const flipped = desiredPolicyStatus(withGeneration(podPolicy, 1, first), { ready: true }, T1);
    expect(flipped.conditions[0]).toMatchObject({ status: 'True', lastTransitionTime: '2026-11-01T11:00:00Z' });
  });

  it('keeps the stored Ready condition while a newer generation waits for its publication', () => {
    const pending = { ready: false, message: 'Not Ready: waiting', pending: true } as const;
    const readyStatus = desiredPolicyStatus(podPolicy, { ready: true }, T0);
    const updated = withGeneration(policyOf('require-team', [labelRule('a', ['Pod']), labelRule('b', ['Pod'])]), 2);
    const kept = desiredPolicyStatus({ ...updated, status: readyStatus } as Policy, pending, T1);
    expect(kept.conditions).toEqual(readyStatus.conditions);
    expect(kept.rulecount.validate).toBe(2); // the rest follows the new spec at once
    // Nothing to keep: the message is written.
    expect(desiredPolicyStatus(updated, pending, T1).conditions[0]).toMatchObject({ status: 'False' });
  });

  it('keeps other conditions and the ValidatingAdmissionPolicy block, and drops the deprecated `ready`', () => {
    const other = { type: 'Other', status: 'True', reason: 'X', message: 'y', lastTransitionTime: 'then' };
    const vap = { generated: true, message: '' };
    const status = desiredPolicyStatus(
      withGeneration(podPolicy, 1, { ready: true, conditions: [other], validatingadmissionpolicy: vap }),
      { ready: true },
      T0,
    );
    expect(status.conditions.map((c) => c.type)).toEqual(['Other', 'Ready']);
    expect(status.validatingadmissionpolicy).toEqual(vap);
    expect('ready' in status).toBe(false);
  });

  it('is a fixed point: the status computed on a policy carrying it matches it, at any later time', () => {
    const status = desiredPolicyStatus(podPolicy, { ready: true }, T0);
    const stored = JSON.parse(JSON.stringify(status)) as unknown;
    const again = desiredPolicyStatus(withGeneration(podPolicy, 1, stored), { ready: true }, T1);
    expect(statusMatches(stored, again)).toBe(true);
    expect(statusMatches(stored, desiredPolicyStatus(podPolicy, { ready: false, message: 'm' }, T0))).toBe(false);
  });
});
