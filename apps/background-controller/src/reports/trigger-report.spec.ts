import { describe, expect, it } from 'vitest';
import { Engine, type Policy, type PolicyResponse, type ResourceRequest, type RuleResponse } from '@edict/engine';
import type { CachedPolicy } from '@edict/policy';
import { triggerReport, type AppliedRule } from './trigger-report';
import { TriggerReports } from './trigger-reports';

const engine = new Engine();
const NOW = new Date('2026-11-26T10:00:00.500Z');

function cached(name: string, annotations: Record<string, string> = {}): CachedPolicy {
  const source = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, annotations },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Namespace'] } }] }, validate: { deny: {} } }] },
  } as Policy;
  return {
    key: name,
    kind: 'ClusterPolicy',
    name,
    resourceVersion: '42',
    compiled: engine.compile(source),
    failurePolicy: 'Fail',
    admission: true,
    ruleTypes: new Set(['generate']),
    warnings: [],
  };
}

const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'ns-uid' } };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'staging', uid: 'pod-uid' } };

function applied(type: AppliedRule['type'], trigger: Record<string, unknown>, rules: RuleResponse[]): AppliedRule {
  const metadata = trigger.metadata as { name: string; namespace?: string };
  const response: PolicyResponse = {
    policy: { name: 'p', kind: 'ClusterPolicy' },
    resource: {
      apiVersion: trigger.apiVersion as string,
      kind: trigger.kind as string,
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    },
    rules,
    validationFailureAction: 'Audit',
  };
  const request: ResourceRequest = { operation: 'CREATE', resource: trigger as ResourceRequest['resource'] };
  return { type, policy: cached('p'), request, response };
}

describe('triggerReport', () => {
  it("reports a generate pass about a Namespace in a ClusterEphemeralReport naming what it wrote, as Kyverno's background controller does", () => {
    const rule: RuleResponse = {
      name: 'clone-secret',
      type: 'Generation',
      status: 'pass',
      message: '',
      generatedResources: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'team-a', name: 'regcred' } },
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: 'team-a', name: 'deny' } },
      ],
    };
    const report = triggerReport(applied('generate', namespace, [rule]), 'ur-uid-1', NOW)!;
    expect(report.kind).toBe('ClusterEphemeralReport');
    expect(report.metadata.namespace).toBeUndefined();
    expect(report.metadata.name).toMatch(/^ns-uid-[0-9a-f]{10}$/);
    expect(report.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'kyverno',
      'audit.kyverno.io/source': 'background-scan',
      'audit.kyverno.io/resource.uid': 'ns-uid',
      'audit.kyverno.io/resource.kind': 'Namespace',
      'audit.kyverno.io/resource.version': 'v1',
      'cpol.kyverno.io/p': '42',
    });
    expect(report.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: 'ns-uid' },
    ]);
    expect(report.spec.owner).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: 'ns-uid' });
    expect(report.spec.summary).toEqual({ pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
    expect(report.spec.results).toEqual([
      {
        source: 'kyverno',
        policy: 'p',
        rule: 'clone-secret',
        result: 'pass',
        scored: true,
        message: '',
        timestamp: { seconds: Math.floor(NOW.getTime() / 1000), nanos: 0 },
        properties: {
          'generated-resources':
            '/v1, Kind=Secret Name=regcred Namespace=team-a; networking.k8s.io/v1, Kind=NetworkPolicy Name=deny Namespace=team-a',
          process: 'background scan',
        },
      },
    ]);
  });

  it('reports a mutate-existing result about a Pod in its namespace, naming the patched target', () => {
    const rule: RuleResponse = {
      name: 'label-secret',
      type: 'Mutation',
      status: 'pass',
      message: 'mutated Secret/secret-1 in namespace staging',
      patchedTargets: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-1', namespace: 'staging' } }],
    };
    const report = triggerReport(applied('mutateExisting', pod, [rule]), 'ur-1', NOW)!;
    expect(report).toMatchObject({ kind: 'EphemeralReport', metadata: { namespace: 'staging' } });
    expect(report.metadata.name).toMatch(/^pod-uid-/);
    expect(report.spec.results).toMatchObject([
      {
        rule: 'label-secret',
        result: 'pass',
        message: 'mutated Secret/secret-1 in namespace staging',
        properties: { 'patched-target': '/v1, Kind=Secret Name=secret-1 Namespace=staging' },
      },
    ]);
  });

  it('keeps skip and error results, and reports an unscored policy fail as warn', () => {
    const unscored = {
      ...applied('generate', namespace, []),
      policy: cached('p', { 'policies.kyverno.io/scored': 'false' }),
    };
    const rules: RuleResponse[] = [
      { name: 'a', type: 'Generation', status: 'skip', message: 'preconditions not met' },
      { name: 'b', type: 'Generation', status: 'error', message: 'failed to load context' },
      { name: 'c', type: 'Generation', status: 'fail', message: 'no' },
    ];
    const report = triggerReport({ ...unscored, response: { ...unscored.response, rules } }, 'ur-1', NOW)!;
    expect(report.spec.results.map((result) => [result.rule, result.result, result.scored])).toEqual([
      ['a', 'skip', false],
      ['b', 'error', false],
      ['c', 'warn', false],
    ]);
    // No generated-resources property: only Kyverno's process property (the policy runs in background scans).
    const process = { process: 'background scan' };
    expect(report.spec.results.map((result) => result.properties)).toEqual([process, process, process]);
  });

  it('names the report after the trigger and the request: the same request meets the same report', () => {
    const rule: RuleResponse = { name: 'r', type: 'Generation', status: 'pass', message: '' };
    const name = (key: string) => triggerReport(applied('generate', namespace, [rule]), key, NOW)!.metadata.name;
    expect(name('ur-1')).toBe(name('ur-1'));
    expect(name('ur-1')).not.toBe(name('ur-2'));
  });

  it('reports nothing without results, about an Event, or about a trigger without a uid', () => {
    const rule: RuleResponse = { name: 'r', type: 'Generation', status: 'pass', message: '' };
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'staging', uid: 'e-uid' } };
    const unnamed = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'staging' } };
    expect(triggerReport(applied('generate', namespace, []), 'ur', NOW)).toBeUndefined();
    expect(triggerReport(applied('generate', event, [rule]), 'ur', NOW)).toBeUndefined();
    expect(triggerReport(applied('generate', unnamed, [rule]), 'ur', NOW)).toBeUndefined();
  });
});

describe('TriggerReports', () => {
  const rule: RuleResponse = { name: 'r', type: 'Generation', status: 'pass', message: '' };

  it('writes only the rule types enableReporting names', async () => {
    const written: string[] = [];
    const reports = new TriggerReports(
      { write: async (report) => (written.push(report.spec.results[0]!.rule), 'created') },
      ['generate'],
      () => NOW,
    );
    await reports.write('ur-1', applied('generate', namespace, [rule]));
    await reports.write('ur-2', applied('mutateExisting', pod, [{ ...rule, name: 'm', type: 'Mutation' }]));
    expect(written).toEqual(['r']);
  });

  it('does not fail the request when the report cannot be written', async () => {
    const reports = new TriggerReports(
      {
        write: async () => {
          throw new Error('forbidden');
        },
      },
      ['generate'],
    );
    await expect(reports.write('ur-1', applied('generate', namespace, [rule]))).resolves.toBeUndefined();
  });
});
