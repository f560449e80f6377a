import { describe, expect, it } from 'vitest';
import { defaultAdmissionConfig, type AdmissionRequest } from '@edict/admission';
import { compileDeletingPolicy, compileGeneratingPolicy, compileMutatingPolicy } from '@edict/cel-policies';
import { Engine } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { PolicyStore } from '@edict/policy';
import type { ReviewInputs } from '../../webhooks/review-decision';
import { evaluateAdmission } from './evaluate-admission';
import type { CelPolicyEvaluation } from './evaluate-cel-policies';
import { parseEvaluationInput } from './evaluation-input';

const config = defaultAdmissionConfig({ controllerNamespace: 'edict' });

const matching = (group: string, version: string, resource: string) => ({
  resourceRules: [
    { apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources: [resource] },
  ],
});
const policyOf = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'policies.kyverno.io/v1', kind, metadata: { name }, spec }) as unknown as KubeObject;
const mutatingPolicy = (name: string, spec: Record<string, unknown>) => policyOf('MutatingPolicy', name, spec);
const generatingPolicy = (name: string, spec: Record<string, unknown>) => policyOf('GeneratingPolicy', name, spec);

function noClassicPolicies(): ReviewInputs {
  const snapshot = new PolicyStore({ exceptionNamespaces: [] }).snapshot();
  return { snapshot, config, engine: new Engine({ exceptions: () => [] }), namespaceLabels: {} };
}

function request(object: KubeObject): AdmissionRequest {
  const parsed = parseEvaluationInput(object);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.request;
}

const pod = (labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

const addTeam = compileMutatingPolicy(
  mutatingPolicy('add-team', {
    matchConstraints: matching('', 'v1', 'pods'),
    mutations: [
      {
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}' },
      },
    ],
  }),
);

const configMapPerPod = compileGeneratingPolicy(
  generatingPolicy('config-per-pod', {
    matchConstraints: matching('', 'v1', 'pods'),
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.namespace, [{"apiVersion": "v1", "kind": "ConfigMap", ' +
          '"metadata": dyn({"name": object.metadata.name + "-config"}), "data": dyn({"team": object.metadata.labels.team})}])',
      },
    ],
  }),
);

const deleteUnlabelled = compileDeletingPolicy(
  policyOf('DeletingPolicy', 'delete-unowned', {
    schedule: '*/5 * * * *',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    conditions: [{ name: 'no-owner', expression: '!has(object.metadata.labels.owner)' }],
  }),
);

function cel(
  policies: Partial<Pick<CelPolicyEvaluation, 'mutating' | 'generating' | 'deleting'>>,
): CelPolicyEvaluation {
  return {
    mutating: policies.mutating ?? [],
    generating: policies.generating ?? [],
    deleting: policies.deleting ?? [],
    context: { ports: {} },
    namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } },
  };
}

describe('evaluateAdmission with MutatingPolicies, GeneratingPolicies and DeletingPolicies', () => {
  it('returns each MutatingPolicy’s patch and the mutated object, which validation and generation then see', async () => {
    const result = await evaluateAdmission(
      request(pod()),
      noClassicPolicies(),
      undefined,
      cel({ mutating: [addTeam], generating: [configMapPerPod] }),
    );
    expect(result.allowed).toBe(true);
    expect(result.mutatingPolicies).toEqual([
      expect.objectContaining({
        policy: 'add-team',
        policyKind: 'MutatingPolicy',
        status: 'pass',
        patch: [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }],
        mutatedResource: expect.objectContaining({
          metadata: expect.objectContaining({ labels: { team: 'platform' } }),
        }),
      }),
    ]);
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'platform' }]);
    expect(result.patchedResource?.metadata?.labels).toEqual({ team: 'platform' });
    expect(result.webhooks.map((step) => [step.webhook, step.policies])).toContainEqual(['mpol', ['add-team']]);
    // The GeneratingPolicy saw the mutated Pod (its team label).
    expect(result.generatingPolicies).toEqual([
      expect.objectContaining({
        policy: 'config-per-pod',
        status: 'pass',
        generated: [
          expect.objectContaining({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: expect.objectContaining({ name: 'web-config', namespace: 'default' }),
            data: { team: 'platform' },
          }),
        ],
      }),
    ]);
  });

  it('says whether a DeletingPolicy would delete the object, and why not', async () => {
    const doomed = await evaluateAdmission(
      request(pod()),
      noClassicPolicies(),
      undefined,
      cel({ deleting: [deleteUnlabelled] }),
    );
    expect(doomed.deletingPolicies).toEqual([
      { policy: 'delete-unowned', policyKind: 'DeletingPolicy', wouldDelete: true, result: 'delete' },
    ]);
    const owned = await evaluateAdmission(
      request(pod({ owner: 'me' })),
      noClassicPolicies(),
      undefined,
      cel({ deleting: [deleteUnlabelled] }),
    );
    expect(owned.deletingPolicies).toEqual([
      {
        policy: 'delete-unowned',
        policyKind: 'DeletingPolicy',
        wouldDelete: false,
        result: 'keep',
        reason: 'conditions',
      },
    ]);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
    const unmatched = await evaluateAdmission(
      request(configMap),
      noClassicPolicies(),
      undefined,
      cel({ deleting: [deleteUnlabelled] }),
    );
    expect(unmatched.deletingPolicies).toMatchObject([{ wouldDelete: false, result: 'keep', reason: 'unmatched' }]);
  });

  it('refuses at the mpol step when a MutatingPolicy with failurePolicy Fail errs', async () => {
    const broken = compileMutatingPolicy(
      mutatingPolicy('broken', {
        matchConstraints: matching('', 'v1', 'pods'),
        failurePolicy: 'Fail',
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": string(1 / 0)}}}' },
          },
        ],
      }),
    );
    const result = await evaluateAdmission(request(pod()), noClassicPolicies(), undefined, cel({ mutating: [broken] }));
    expect(result.allowed).toBe(false);
    expect(result.message).toMatch(/^MutatingPolicy broken failed: /);
    expect(result.mutatingPolicies).toMatchObject([{ policy: 'broken', status: 'error' }]);
    expect(result.webhooks.at(-1)).toMatchObject({ webhook: 'mpol', allowed: false });
  });

  it('leaves the CEL sections empty without CEL policies', async () => {
    const result = await evaluateAdmission(request(pod()), noClassicPolicies());
    expect(result).toMatchObject({ mutatingPolicies: [], generatingPolicies: [], deletingPolicies: [] });
  });
});
