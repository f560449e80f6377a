import { describe, expect, it } from 'vitest';
import {
  compileCelPolicyException,
  compileGeneratingPolicy,
  type CompiledCelPolicyException,
  type CompiledGeneratingPolicy,
} from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import { generateForTrigger } from './gpol-generate';
import { generationReport } from './gpol-report';

const policy = compileGeneratingPolicy({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'GeneratingPolicy',
  metadata: { name: 'zk', resourceVersion: '7', annotations: { 'policies.kyverno.io/category': 'Multi-Tenancy' } },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['namespaces'] },
      ],
    },
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.name, [{"kind": dyn("ConfigMap"), "apiVersion": dyn("v1"), "metadata": dyn({"name": "zk"}), "data": dyn({"ns": object.metadata.name})}])',
      },
    ],
    auditAnnotations: [{ key: 'namespace', valueExpression: 'object.metadata.name' }],
  },
});

const trigger: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'ns-uid' } };
const now = new Date('2026-11-29T20:00:00Z');

async function generate(exceptions: readonly CompiledCelPolicyException[] = [], compiled = policy) {
  const cluster = new FakeCluster();
  cluster.put(trigger);
  const generation = await generateForTrigger(compiled, trigger, {
    cluster,
    ports: {},
    exceptions: () => exceptions,
    namespaceObject: async (name) => cluster.find('v1', 'Namespace', name),
    resourceOf: async (_apiVersion, kind) => (kind === 'Namespace' ? 'namespaces' : undefined),
  });
  return { compiled, trigger, generation, admission: true };
}

describe('generationReport', () => {
  it('reports the pass about the trigger with the audit annotations and the objects written', async () => {
    const report = generationReport(await generate(), 'ur-uid', now);
    expect(report?.kind).toBe('ClusterEphemeralReport');
    expect(report?.metadata.labels).toMatchObject({
      'audit.kyverno.io/source': 'background-scan',
      'audit.kyverno.io/resource.uid': 'ns-uid',
      'gpol.kyverno.io/zk': '7',
    });
    expect(report?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Namespace', name: 'team-a', uid: 'ns-uid' });
    expect(report?.spec.results).toEqual([
      expect.objectContaining({
        source: 'KyvernoGeneratingPolicy',
        policy: 'zk',
        rule: 'zk',
        result: 'pass',
        scored: true,
        category: 'Multi-Tenancy',
        message: 'policy evaluated successfully',
        properties: {
          namespace: 'team-a',
          process: 'admission review',
          'generated-resources': '/v1, Kind=ConfigMap Name=zk Namespace=team-a',
        },
      }),
    ]);
  });

  it('names the exception that passed the trigger, and no generated resources', async () => {
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1alpha1',
      kind: 'PolicyException',
      metadata: { name: 'allow-team-a', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'zk', kind: 'GeneratingPolicy' }],
        matchConditions: [{ name: 'team-a', expression: "object.metadata.name == 'team-a'" }],
        reportResult: 'pass',
      },
    });
    const generated = await generate([exception]);
    expect(generated.generation.generated).toEqual([]);
    const [row] = generationReport(generated, 'ur-uid', now)?.spec.results ?? [];
    expect(row).toMatchObject({ result: 'pass', source: 'KyvernoGeneratingPolicy', policy: 'zk' });
    expect(row?.properties).toEqual({ exceptions: 'allow-team-a', process: 'admission review' });
  });

  it('reports nothing for a policy left out of reports, nor for a trigger without a uid', async () => {
    const disabled = compileGeneratingPolicy({
      ...policy.policy,
      metadata: { name: 'zk', labels: { 'reports.kyverno.io/disabled': 'true' } },
    });
    expect(generationReport(await generate([], disabled), 'ur-uid', now)).toBeUndefined();
    const generated = await generate();
    expect(
      generationReport({ ...generated, trigger: { ...trigger, metadata: { name: 'team-a' } } }, 'ur', now),
    ).toBeUndefined();
  });

  it('names a namespaced policy by namespace/name', async () => {
    // The compiled policy as the CEL cache holds a NamespacedGeneratingPolicy of team-a.
    const namespaced: CompiledGeneratingPolicy = {
      ...policy,
      kind: 'NamespacedGeneratingPolicy',
      namespace: 'team-a',
      policy: { ...policy.policy, kind: 'NamespacedGeneratingPolicy', metadata: { name: 'zk', namespace: 'team-a' } },
    };
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed', namespace: 'team-a', uid: 'cm-uid' },
    };
    const generation = {
      result: {
        policy: { name: 'zk', kind: 'NamespacedGeneratingPolicy' as const, namespace: 'team-a' },
        trigger: cm as never,
        status: 'pass' as const,
        message: 'policy evaluated successfully',
        downstream: [],
        rule: { name: 'zk', type: 'Generation' as const, status: 'pass' as const, message: 'ok' },
      },
      generated: [],
    };
    const report = generationReport({ compiled: namespaced, trigger: cm, generation, admission: true }, 'ur', now);
    expect(report?.kind).toBe('EphemeralReport');
    expect(report?.metadata.namespace).toBe('team-a');
    expect(report?.spec.results?.[0]?.policy).toBe('team-a/zk');
  });
});
