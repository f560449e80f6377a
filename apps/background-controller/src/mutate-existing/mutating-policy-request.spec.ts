import { describe, expect, it } from 'vitest';
import type { UpdateRequestSpec } from '@edict/admission';
import { compileMutatingPolicy, type CompiledMutatingPolicy } from '@edict/cel-policies';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { KubeApiError, type EventInput } from '@edict/kube';
import type { EphemeralReportObject } from '@edict/reports';
import { FakeCluster } from '../testing/fake-cluster';
import { mutatingPolicyForRequest, type ServedResource } from './mutating-policy-request';

const SERVED: Record<string, ServedResource> = {
  'v1/configmaps': { kind: 'ConfigMap', namespaced: true },
  'v1/secrets': { kind: 'Secret', namespaced: true },
  'v1/namespaces': { kind: 'Namespace', namespaced: false },
};

const addLabel = (label: string) => [
  {
    patchType: 'ApplyConfiguration',
    applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"${label}": "yes"}}}` },
  },
];

const rules = (resource: string, names?: string[]) => ({
  resourceRules: [
    {
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['CREATE', 'UPDATE'],
      resources: [resource],
      ...(names ? { resourceNames: names } : {}),
    },
  ],
});

function policy(name: string, spec: JsonObject, namespace?: string): CompiledMutatingPolicy {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, uid: `${name}-uid`, ...(namespace ? { namespace } : {}) },
    spec: { evaluation: { mutateExisting: { enabled: true } }, ...spec },
  } as unknown as KubeObject);
}

/** Same trigger and target: configmaps named `settings` in namespaces whose name starts with `team-`. */
const sameKind = policy('label-settings', {
  matchConstraints: rules('configmaps', ['settings']),
  matchConditions: [{ name: 'teams', expression: 'object.metadata.namespace.startsWith("team-")' }],
  mutations: addLabel('mutated'),
});

/** A Secret update mutates the ConfigMap `target`. */
const crossKind = (namespace?: string) =>
  policy(
    'secret-to-configmap',
    {
      matchConstraints: rules('secrets'),
      targetMatchConstraints: rules('configmaps', ['target']),
      mutations: addLabel('by-trigger'),
    },
    namespace,
  );

const configMap = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { key: 'value' },
});

function setup(policies: CompiledMutatingPolicy[], options: { reports?: EphemeralReportObject[] } = {}) {
  const cluster = new FakeCluster();
  for (const namespace of ['team-a', 'team-b', 'other']) {
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
  const events: EventInput[] = [];
  const run = (spec: UpdateRequestSpec) =>
    mutatingPolicyForRequest(
      { metadata: { name: 'ur-1' }, spec },
      {
        cluster,
        emit: (_source, event) => events.push(event),
        mutating: {
          mutatingPolicies: () => policies,
          resourceNamed: async (apiVersion, plural) => SERVED[`${apiVersion}/${plural}`],
          celContext: () => ({ ports: {} }),
        },
        ...(options.reports
          ? {
              report: async (report: EphemeralReportObject) => {
                options.reports!.push(report);
              },
              now: () => new Date('2026-01-01T00:00:00Z'),
            }
          : {}),
      },
    );
  return { cluster, events, run };
}

/** A request a policy change makes: no trigger, no admission request. */
const policyScan = (policyKey: string): UpdateRequestSpec => ({
  requestType: 'cel-mutate',
  policy: policyKey,
  rule: '',
  deleteDownstream: false,
  ruleContext: [],
  resource: {},
  context: { userInfo: { userInfo: {} }, admissionRequestInfo: {} },
});

/** A request the admission of a Secret update made. */
function secretUpdate(policyKey: string, secret: KubeObject): UpdateRequestSpec {
  const namespace = secret.metadata.namespace ?? '';
  return {
    requestType: 'cel-mutate',
    policy: policyKey,
    rule: '',
    deleteDownstream: false,
    ruleContext: [],
    resource: { apiVersion: 'v1', kind: 'Secret', namespace, name: secret.metadata.name },
    context: {
      userInfo: { userInfo: { username: 'alice' } },
      admissionRequestInfo: {
        operation: 'UPDATE',
        admissionRequest: {
          uid: 'review',
          kind: { group: '', version: 'v1', kind: 'Secret' },
          resource: { group: '', version: 'v1', resource: 'secrets' },
          namespace,
          name: secret.metadata.name,
          operation: 'UPDATE',
          userInfo: { username: 'alice' },
          object: secret,
          oldObject: secret,
        },
      },
    },
  };
}

const labelsOf = (cluster: FakeCluster, namespace: string, name: string) =>
  cluster.find('v1', 'ConfigMap', name, namespace)?.metadata.labels;

describe('mutatingPolicyForRequest', () => {
  it("patches every existing target of a policy change's request that its match conditions admit, with an Event each", async () => {
    const { cluster, events, run } = setup([sameKind]);
    cluster.put(configMap('team-a', 'settings'));
    cluster.put(configMap('other', 'settings'));
    cluster.put(configMap('team-a', 'unrelated'));
    expect(await run(policyScan('label-settings'))).toEqual({ generated: [] });
    expect(labelsOf(cluster, 'team-a', 'settings')).toEqual({ mutated: 'yes' });
    expect(labelsOf(cluster, 'other', 'settings')).toBeUndefined();
    expect(labelsOf(cluster, 'team-a', 'unrelated')).toBeUndefined();
    expect(events).toEqual([
      expect.objectContaining({
        regarding: expect.objectContaining({
          apiVersion: 'policies.kyverno.io/v1beta1',
          kind: 'MutatingPolicy',
          name: 'label-settings',
        }),
        related: expect.objectContaining({ kind: 'ConfigMap', namespace: 'team-a', name: 'settings' }),
        reason: 'PolicyApplied',
        action: 'Resource Mutated',
        note: 'ConfigMap team-a/settings is successfully mutated',
      }),
    ]);
  });

  it('patches the targets of an admitted trigger under its request', async () => {
    const { cluster, run } = setup([crossKind()]);
    const secret = cluster.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'trigger', namespace: 'team-a' },
    });
    cluster.put(configMap('team-a', 'target'));
    cluster.put(configMap('team-b', 'target'));
    expect(await run(secretUpdate('secret-to-configmap', secret))).toEqual({ generated: [] });
    expect(labelsOf(cluster, 'team-a', 'target')).toEqual({ 'by-trigger': 'yes' });
    expect(labelsOf(cluster, 'team-b', 'target')).toEqual({ 'by-trigger': 'yes' });
  });

  it('keeps a NamespacedMutatingPolicy to its namespace, found by namespace/name or by name in the request namespace', async () => {
    for (const key of ['team-a/secret-to-configmap', 'secret-to-configmap']) {
      const { cluster, run } = setup([crossKind('team-a')]);
      const secret = cluster.put({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'trigger', namespace: 'team-a' },
      });
      cluster.put(configMap('team-a', 'target'));
      cluster.put(configMap('team-b', 'target'));
      expect(await run(secretUpdate(key, secret))).toEqual({ generated: [] });
      expect(labelsOf(cluster, 'team-a', 'target')).toEqual({ 'by-trigger': 'yes' });
      expect(labelsOf(cluster, 'team-b', 'target')).toBeUndefined();
    }
  });

  it('fails a request whose policy is not served, or that names none', async () => {
    const { run } = setup([crossKind('team-a')]);
    expect((await run(policyScan('missing'))).error).toBe(
      'failed to fetch mpol missing: mutatingpolicies.policies.kyverno.io "missing" not found',
    );
    expect((await run(policyScan('team-b/secret-to-configmap'))).error).toBe(
      'failed to fetch mpol team-b/secret-to-configmap: namespacedmutatingpolicies.policies.kyverno.io "secret-to-configmap" not found',
    );
    expect((await run(policyScan(''))).error).toBe('update request ur-1 has empty policy key');
  });

  it('fails (to be retried) when a target cannot be written, and patches the others', async () => {
    const { cluster, events, run } = setup([sameKind]);
    cluster.put(configMap('team-a', 'settings'));
    cluster.put(configMap('team-b', 'settings'));
    cluster.failNextWrites.push(new KubeApiError(409, 'Conflict', 'the object has been modified'));
    const outcome = await run(policyScan('label-settings'));
    expect(outcome.error).toBe(
      'failed to update target resource for mpol label-settings: the object has been modified',
    );
    const labelled = ['team-a', 'team-b'].filter((namespace) => labelsOf(cluster, namespace, 'settings')?.mutated);
    expect(labelled).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it('needs the admission request of a trigger to evaluate a target expression', async () => {
    const expression = policy('by-expression', {
      matchConstraints: rules('secrets'),
      targetMatchConstraints: { ...rules('configmaps'), expression: 'object' },
      mutations: addLabel('x'),
    });
    const { run } = setup([expression]);
    expect((await run(policyScan('by-expression'))).error).toBe(
      'invalid update request passed, the fields needed to extract resource data are nil',
    );
  });

  it('reports each patched target when reporting is on, about the target, with the policy result', async () => {
    const reports: EphemeralReportObject[] = [];
    const { cluster, run } = setup([sameKind], { reports });
    cluster.put(configMap('team-a', 'settings'));
    await run(policyScan('label-settings'));
    expect(reports).toHaveLength(1);
    const report = reports[0]!;
    expect(report.metadata.namespace).toBe('team-a');
    expect(report.spec.owner).toMatchObject({ kind: 'ConfigMap', name: 'settings' });
    expect(report.spec.results).toEqual([
      expect.objectContaining({ policy: 'label-settings', result: 'pass', source: 'KyvernoMutatingPolicy' }),
    ]);
  });
});
