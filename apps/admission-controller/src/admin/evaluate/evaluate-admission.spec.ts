import { describe, expect, it } from 'vitest';
import {
  defaultAdmissionConfig,
  toResourceRequest,
  validatingPolicyAdmission,
  type AdmissionEngine,
  type AdmissionRequest,
  type ValidatingPolicyPath,
} from '@edict/admission';
import { compileValidatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { Engine, type Policy, type PolicyException, type PolicyResponse } from '@edict/engine';
import { PolicyStore } from '@edict/policy';
import type { ReviewInputs } from '../../webhooks/review-decision';
import { evaluateAdmission } from './evaluate-admission';
import { parseEvaluationInput } from './evaluation-input';

const config = defaultAdmissionConfig({ controllerNamespace: 'edict' });

function policy(name: string, spec: Record<string, unknown>): Policy {
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name }, spec } as unknown as Policy;
}

const requireTeam = (action: 'Enforce' | 'Audit', name = 'require-team', extra: Record<string, unknown> = {}) =>
  policy(name, {
    validationFailureAction: action,
    ...extra,
    rules: [
      {
        name: 'check-team',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: { message: 'label team is required', pattern: { metadata: { labels: { team: '?*' } } } },
      },
    ],
  });

const addLabels = policy('add-labels', {
  rules: [
    {
      name: 'add-env',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { env: 'dev' } } } },
    },
    {
      name: 'add-team',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { team: 'platform' } } } },
    },
  ],
});

function inputsWith(policies: Policy[], exceptions: PolicyException[] = [], engine?: AdmissionEngine): ReviewInputs {
  const store = new PolicyStore({ exceptionNamespaces: ['default'] });
  for (const p of policies) expect(store.upsertPolicy(p).status).not.toBe('invalid');
  for (const e of exceptions) store.upsertException(e);
  const snapshot = store.snapshot();
  return {
    snapshot,
    config,
    engine: engine ?? new Engine({ exceptions: () => snapshot.exceptions }),
    namespaceLabels: {},
  };
}

function podRequest(labels: Record<string, string> = {}, namespace = 'default'): AdmissionRequest {
  const parsed = parseEvaluationInput({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace, labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.request;
}

describe('evaluateAdmission', () => {
  it('denies a Pod an Enforce policy blocks, with Kyverno’s message and the failing rule in the trace', async () => {
    const result = await evaluateAdmission(podRequest(), inputsWith([requireTeam('Enforce')]));
    expect(result.allowed).toBe(false);
    expect(result.message).toContain('resource Pod/default/web was blocked due to the following policies');
    expect(result.message).toContain("check-team: 'validation error: label team is required.");
    const denial = result.webhooks.find((step) => !step.allowed);
    expect(denial).toMatchObject({ webhook: 'validate/fail', policies: ['require-team'] });
    expect(result.trace).toEqual([
      expect.objectContaining({
        webhook: 'validate/fail',
        stage: 'admission',
        policy: 'require-team',
        policyKind: 'ClusterPolicy',
        rule: 'check-team',
        type: 'Validation',
        status: 'fail',
        failureAction: 'Enforce',
        message: expect.stringContaining('label team is required'),
        policyDurationMs: expect.any(Number),
      }),
    ]);
  });

  it('admits what passes, and traces audit-only policies as evaluated after the answer', async () => {
    const inputs = inputsWith([requireTeam('Enforce'), requireTeam('Audit', 'audit-team')]);
    const passing = await evaluateAdmission(podRequest({ team: 'a' }), inputs);
    expect(passing.allowed).toBe(true);
    expect(passing.warnings).toEqual([]);
    expect(passing.trace.map((t) => [t.policy, t.stage, t.status])).toEqual([
      ['require-team', 'admission', 'pass'],
      ['audit-team', 'audit', 'pass'],
    ]);

    const audited = await evaluateAdmission(podRequest(), inputsWith([requireTeam('Audit', 'audit-team')]));
    expect(audited.allowed).toBe(true);
    expect(audited.trace).toEqual([expect.objectContaining({ policy: 'audit-team', stage: 'audit', status: 'fail' })]);
  });

  it('warns for an Audit policy with emitWarning, as the webhook does', async () => {
    const result = await evaluateAdmission(
      podRequest(),
      inputsWith([requireTeam('Audit', 'warn-team', { emitWarning: true })]),
    );
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([
      'policy warn-team.check-team: validation error: label team is required. rule check-team failed at path /metadata/labels/team/',
    ]);
    expect(result.trace[0]).toMatchObject({ stage: 'admission', status: 'fail', failureAction: 'Audit' });
  });

  it('returns one patch for the mutation, each rule’s own patch, and validates the mutated object', async () => {
    const result = await evaluateAdmission(podRequest(), inputsWith([addLabels, requireTeam('Enforce')]));
    expect(result.allowed).toBe(true);
    expect(result.patch).toEqual([
      { op: 'add', path: '/metadata/labels/env', value: 'dev' },
      { op: 'add', path: '/metadata/labels/team', value: 'platform' },
    ]);
    expect(result.patchedResource?.metadata.labels).toEqual({ env: 'dev', team: 'platform' });
    const mutations = result.trace.filter((t) => t.type === 'Mutation');
    expect(mutations.map((t) => [t.webhook, t.rule, t.status, t.patch])).toEqual([
      ['mutate/fail', 'add-env', 'pass', [{ op: 'add', path: '/metadata/labels/env', value: 'dev' }]],
      ['mutate/fail', 'add-team', 'pass', [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }]],
    ]);
    // The Enforce policy saw the label the mutation added.
    expect(result.trace.find((t) => t.policy === 'require-team')).toMatchObject({ status: 'pass' });
    expect(result.webhooks.find((s) => s.webhook === 'mutate/fail')?.patch).toHaveLength(2);
  });

  it('serves each policy on the path of its failure policy', async () => {
    const ignored = requireTeam('Enforce', 'ignore-team', { failurePolicy: 'Ignore' });
    const result = await evaluateAdmission(podRequest(), inputsWith([ignored]));
    expect(result.webhooks.map((s) => [s.webhook, s.policies])).toEqual([
      ['mutate/ignore', []],
      ['mutate/fail', []],
      ['validate/ignore', ['ignore-team']],
      ['validate/fail', []],
    ]);
    expect(result.allowed).toBe(false);
  });

  it('shows the exception that skipped a rule', async () => {
    const exception = {
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'let-web-in', namespace: 'default' },
      spec: {
        match: { any: [{ resources: { kinds: ['Pod'], names: ['web'] } }] },
        exceptions: [{ policyName: 'require-team', ruleNames: ['check-team'] }],
      },
    } as unknown as PolicyException;
    const result = await evaluateAdmission(podRequest(), inputsWith([requireTeam('Enforce')], [exception]));
    expect(result.allowed).toBe(true);
    expect(result.trace[0]).toMatchObject({ status: 'skip', exceptions: ['default/let-web-in'] });
  });

  it('reports the filter for a namespace the controller excludes, evaluating nothing', async () => {
    const result = await evaluateAdmission(podRequest({}, 'kube-system'), inputsWith([requireTeam('Enforce')]));
    expect(result.allowed).toBe(true);
    expect(result.trace).toEqual([]);
    expect(result.webhooks.find((s) => s.webhook === 'validate/fail')?.filtered).toEqual(expect.any(String));
  });

  it('answers a crashing engine by the failure policy, with the error in the trace', async () => {
    const failing: AdmissionEngine = {
      validate: () => Promise.reject(new Error('boom')),
      mutate: () => Promise.reject(new Error('boom')),
      generate: () => Promise.reject(new Error('boom')),
    };
    const result = await evaluateAdmission(podRequest(), inputsWith([requireTeam('Enforce')], [], failing));
    expect(result.allowed).toBe(false);
    expect(result.trace[0]).toMatchObject({ status: 'error', message: 'policy evaluation failed: boom' });
    expect(result.trace[0]?.policyDurationMs).toBeUndefined();
  });

  it('stops at a mutating denial, as the API server does', async () => {
    const failing: AdmissionEngine = {
      validate: () => Promise.reject(new Error('never reached')),
      mutate: () => Promise.reject(new Error('kaput')),
      generate: () => Promise.reject(new Error('never reached')),
    };
    const result = await evaluateAdmission(podRequest(), inputsWith([addLabels, requireTeam('Enforce')], [], failing));
    expect(result.allowed).toBe(false);
    expect(result.message).toContain('mutation policy add-labels error');
    expect(result.webhooks.map((s) => s.webhook)).toEqual(['mutate/ignore', 'mutate/fail']);
  });

  it('never mutates what it was given', async () => {
    const request = podRequest();
    const before = JSON.stringify(request);
    await evaluateAdmission(request, inputsWith([addLabels]));
    expect(JSON.stringify(request)).toBe(before);
  });

  it('records the time and the input of each policy the engine ran', async () => {
    const seen: PolicyResponse[] = [];
    const engine = new Engine();
    const spying: AdmissionEngine = {
      validate: async (...args) => {
        const response = await engine.validate(...args);
        seen.push(response);
        return response;
      },
      mutate: (...args) => engine.mutate(...args),
      generate: (...args) => engine.generate(...args),
    };
    const result = await evaluateAdmission(podRequest(), inputsWith([requireTeam('Enforce')], [], spying));
    expect(seen).toHaveLength(1);
    expect(result.trace[0]?.policyDurationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('evaluateAdmission with ValidatingPolicies', () => {
  it('adds the vpol paths as the webhook decides them, with their rules in the trace', async () => {
    const vpol = compileValidatingPolicy({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'vpol-team' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        validations: [{ expression: 'has(object.metadata.labels.team)', message: 'a team label is needed' }],
      },
    } as unknown as KubeObject);
    const decide = (path: ValidatingPolicyPath, request: AdmissionRequest) =>
      validatingPolicyAdmission(toResourceRequest(request), [vpol], path, config, { context: { ports: {} } });
    const result = await evaluateAdmission(podRequest(), inputsWith([]), decide);
    expect(result.allowed).toBe(false);
    expect(result.message).toBe('Policy vpol-team failed: a team label is needed');
    expect(result.webhooks.map((step) => [step.webhook, step.allowed, step.policies])).toEqual([
      ['mutate/ignore', true, []],
      ['mutate/fail', true, []],
      ['validate/ignore', true, []],
      ['validate/fail', true, []],
      ['vpol/ignore', true, []],
      ['vpol/fail', false, ['vpol-team']],
    ]);
    expect(result.trace).toMatchObject([
      { webhook: 'vpol/fail', policy: 'vpol-team', policyKind: 'ValidatingPolicy', status: 'fail' },
    ]);
    const labelled = await evaluateAdmission(podRequest({ team: 'a' }), inputsWith([]), decide);
    expect(labelled.allowed).toBe(true);
  });
});
