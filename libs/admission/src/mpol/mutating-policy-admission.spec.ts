import { compileMutatingPolicy, type CompiledMutatingPolicy } from '@edict/cel-policies';
import type { JsonPatchOperation } from '@edict/engine';
import { EvaluationDeadlineExceeded, type KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { podCreateReview } from '../testing/fixtures';
import { mutatingPolicyAdmission, type MutatingPolicyAdmissionOptions } from './mutating-policy-admission';

const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;
const options: MutatingPolicyAdmissionOptions = {
  context: { ports: {} },
  now: () => new Date('2026-11-20T10:12:45.250Z'),
};

const PODS = {
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }],
};

/** A MutatingPolicy on Pods setting label `key` to the CEL expression `value`. */
function setLabel(
  name: string,
  key: string,
  value: string,
  spec: Record<string, unknown> = {},
  namespace?: string,
): CompiledMutatingPolicy {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: PODS,
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: {
            expression: `Object{metadata: Object.metadata{labels: Object.metadata.labels{${key}: ${value}}}}`,
          },
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

const labels = (patch: readonly JsonPatchOperation[] | undefined) =>
  (patch ?? []).filter((op) => op.path.startsWith('/metadata/labels/'));

describe('mutatingPolicyAdmission', () => {
  it('answers with the JSON Patch from the submitted Pod to the mutated one and reports each policy', async () => {
    const outcome = await mutatingPolicyAdmission(
      request(),
      [setLabel('a', 'color', "'blue'"), setLabel('b', 'size', "'xl'")],
      {},
      config,
      options,
    );
    expect(outcome.decision.allowed).toBe(true);
    expect(labels(outcome.decision.patch)).toEqual([
      { op: 'add', path: '/metadata/labels/color', value: 'blue' },
      { op: 'add', path: '/metadata/labels/size', value: 'xl' },
    ]);
    expect(outcome.patchedResource?.metadata?.labels).toMatchObject({ color: 'blue', size: 'xl', team: 'payments' });
    expect(outcome.evaluations.map(({ compiled, result }) => [compiled.name, result.status])).toEqual([
      ['a', 'pass'],
      ['b', 'pass'],
    ]);
    expect(outcome.reportResults.map((row) => [row.policy, row.result, row.source, row.type])).toEqual([
      ['a', 'pass', 'KyvernoMutatingPolicy', 'Mutation'],
      ['b', 'pass', 'KyvernoMutatingPolicy', 'Mutation'],
    ]);
    expect(outcome.reportResults[0]?.properties).toEqual({ process: 'background scan' });
  });

  it('runs each policy on what the previous ones patched, and reinvokes IfNeeded ones a later policy changed', async () => {
    // `copy` reads `size`, which only `b` (after it) sets: it sees it on reinvocation.
    const copy = setLabel(
      'a-copy',
      'copied',
      "has(object.metadata.labels.size) ? object.metadata.labels.size : 'none'",
      { reinvocationPolicy: 'IfNeeded' },
    );
    const outcome = await mutatingPolicyAdmission(
      request(),
      [copy, setLabel('b', 'size', "'xl'")],
      {},
      config,
      options,
    );
    expect(outcome.patchedResource?.metadata?.labels).toMatchObject({ copied: 'xl', size: 'xl' });
    const once = await mutatingPolicyAdmission(
      request(),
      [
        setLabel('a-copy', 'copied', "has(object.metadata.labels.size) ? object.metadata.labels.size : 'none'"),
        setLabel('b', 'size', "'xl'"),
      ],
      {},
      config,
      options,
    );
    expect(once.patchedResource?.metadata?.labels).toMatchObject({ copied: 'none', size: 'xl' });
  });

  it("refuses the request with Kyverno's message when a Fail policy errors, and admits it untouched under Ignore", async () => {
    const broken = (failurePolicy: string) =>
      setLabel('broken', 'x', "string(object.metadata.labels['missing'])", { failurePolicy });
    const denied = await mutatingPolicyAdmission(request(), [broken('Fail')], {}, config, options);
    expect(denied.decision.allowed).toBe(false);
    expect(denied.decision.message).toMatch(
      /^Resource: shop\/checkout-7d9f8b6c5d-x2k4p, Kind: Pod, Errors: \[Policy broken: failed to evaluate policy: .+\]$/,
    );
    expect(denied.decision.patch).toBeUndefined();

    const ignored = await mutatingPolicyAdmission(
      request(),
      [broken('Ignore'), setLabel('ok', 'color', "'blue'")],
      {},
      config,
      options,
    );
    expect(ignored.decision.allowed).toBe(true);
    expect(labels(ignored.decision.patch)).toEqual([{ op: 'add', path: '/metadata/labels/color', value: 'blue' }]);
    expect(ignored.evaluations.map(({ result }) => result.status)).toEqual(['error', 'pass']);
  });

  it('serves only the policies of the path: its failure policy and the names of a fine-grained path', async () => {
    const policies = [setLabel('fails', 'a', "'1'"), setLabel('ignores', 'b', "'2'", { failurePolicy: 'Ignore' })];
    const ignore = await mutatingPolicyAdmission(request(), policies, { failurePolicy: 'Ignore' }, config, options);
    expect(ignore.evaluations.map(({ compiled }) => compiled.name)).toEqual(['ignores']);
    const named = await mutatingPolicyAdmission(request(), policies, { names: ['fails'] }, config, options);
    expect(named.evaluations.map(({ compiled }) => compiled.name)).toEqual(['fails']);
  });

  it('keeps a NamespacedMutatingPolicy to its own namespace', async () => {
    const own = setLabel('own', 'a', "'1'", {}, 'shop');
    const other = setLabel('other', 'b', "'2'", {}, 'billing');
    const outcome = await mutatingPolicyAdmission(request(), [own, other], {}, config, options);
    expect(outcome.evaluations.map(({ compiled }) => compiled.name)).toEqual(['own']);
    expect(labels(outcome.decision.patch)).toEqual([{ op: 'add', path: '/metadata/labels/a', value: '1' }]);
  });

  it('leaves policies with targetMatchConstraints and admission-disabled ones to the background', async () => {
    const existing = setLabel('existing', 'a', "'1'", {
      evaluation: { mutateExisting: { enabled: true } },
      targetMatchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'] }],
      },
    });
    const off = setLabel('off', 'b', "'2'", {
      evaluation: { admission: { enabled: false }, mutateExisting: { enabled: true } },
    });
    const outcome = await mutatingPolicyAdmission(request(), [existing, off], {}, config, options);
    expect(outcome.evaluations).toEqual([]);
    expect(outcome.decision).toEqual({ allowed: true });
    // The trigger asks the background controller to mutate the targets: one cel-mutate UpdateRequest.
    expect(outcome.updateRequests).toEqual([
      expect.objectContaining({
        requestType: 'cel-mutate',
        policy: 'existing',
        resource: expect.objectContaining({ kind: 'Pod', namespace: 'shop', name: 'checkout-7d9f8b6c5d-x2k4p' }),
      }),
    ]);
    const dry = await mutatingPolicyAdmission(
      request((r) => (r.dryRun = true)),
      [existing],
      {},
      config,
      options,
    );
    expect(dry.updateRequests).toEqual([]);
  });

  it("admits the background controller's own requests and filtered ones untouched", async () => {
    const policy = setLabel('a', 'color', "'blue'");
    const background = await mutatingPolicyAdmission(request(), [policy], {}, config, {
      ...options,
      backgroundUsername: 'system:serviceaccount:kube-system:replicaset-controller',
    });
    expect(background.decision).toEqual({ allowed: true });
    expect(background.evaluations).toEqual([]);
    // Unless a mutate-existing policy opts in (skipBackgroundRequests: false): then its UpdateRequest.
    const optIn = setLabel('opt-in', 'a', "'1'", {
      evaluation: { mutateExisting: { enabled: true }, skipBackgroundRequests: false },
      targetMatchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'] }],
      },
    });
    const asked = await mutatingPolicyAdmission(request(), [policy, optIn], {}, config, {
      ...options,
      backgroundUsername: 'system:serviceaccount:kube-system:replicaset-controller',
    });
    expect(asked.evaluations).toEqual([]);
    expect(asked.updateRequests.map((spec) => spec.policy)).toEqual(['opt-in']);
    const filteredConfig = parseAdmissionConfig(
      { resourceFilters: '[Pod,shop,*]' },
      { controllerNamespace: 'edict' },
    ).config;
    const filtered = await mutatingPolicyAdmission(request(), [policy], {}, filteredConfig, options);
    expect(filtered.filtered).toBeDefined();
    expect(filtered.decision).toEqual({ allowed: true });
  });

  it('refuses a patch larger than the bound under Fail, and drops it under Ignore', async () => {
    const big = (failurePolicy: string) => setLabel('big', 'color', "'blue'", { failurePolicy });
    const denied = await mutatingPolicyAdmission(request(), [big('Fail')], {}, config, {
      ...options,
      maxPatchBytes: 10,
    });
    expect(denied.decision.allowed).toBe(false);
    expect(denied.decision.message).toContain("Policy big: the mutating policies' patch is");
    const ignored = await mutatingPolicyAdmission(request(), [big('Ignore')], {}, config, {
      ...options,
      maxPatchBytes: 10,
    });
    expect(ignored.decision).toEqual({ allowed: true });
  });

  it('builds no report results for dry runs or without admission reports', async () => {
    const policy = setLabel('a', 'color', "'blue'");
    const dry = await mutatingPolicyAdmission(
      request((r) => (r.dryRun = true)),
      [policy],
      {},
      config,
      options,
    );
    expect(dry.dryRun).toBe(true);
    expect(dry.reportResults).toEqual([]);
    expect(labels(dry.decision.patch)).toHaveLength(1);
    const off = await mutatingPolicyAdmission(request(), [policy], {}, config, { ...options, admissionReports: false });
    expect(off.reportResults).toEqual([]);
  });

  it('stops at an expired deadline', async () => {
    const expired = {
      expired: () => true,
      remainingMs: () => 0,
    } as unknown as MutatingPolicyAdmissionOptions['deadline'];
    await expect(
      mutatingPolicyAdmission(request(), [setLabel('a', 'color', "'blue'")], {}, config, {
        ...options,
        deadline: expired,
      }),
    ).rejects.toBeInstanceOf(EvaluationDeadlineExceeded);
  });
});
