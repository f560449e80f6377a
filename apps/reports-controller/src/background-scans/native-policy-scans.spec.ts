import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { PolicyStore } from '@edict/policy';
import type { EphemeralReportObject } from '@edict/reports';
import { Engine } from '@edict/engine';
import type { EventInput } from '@edict/kube';
import { FakeReportsCluster } from '../testing/fake-reports-cluster';
import {
  isNativePolicyReportable,
  NO_NATIVE_POLICIES,
  type NativePolicySnapshot,
  type NativePolicySource,
} from '../native-policies/native-policy-source';
import { nativePolicyScans } from './native-policy-scans';
import { ResourceScanner } from './resource-scanner';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const OPT_IN = { 'reports.kyverno.io/enabled': 'true' };

function vap(
  name: string,
  labels: Record<string, string> = OPT_IN,
  annotations: Record<string, string> = {},
): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, labels, annotations, resourceVersion: '11', generation: 1 },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    },
  };
}

function vapBinding(name: string, policyName: string, namespaceLabels?: Record<string, string>): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name, resourceVersion: '12' },
    spec: {
      policyName,
      validationActions: ['Deny'],
      ...(namespaceLabels ? { matchResources: { namespaceSelector: { matchLabels: namespaceLabels } } } : {}),
    },
  };
}

function map(name: string): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name, labels: OPT_IN, resourceVersion: '21' },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
      },
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: 'Object{ metadata: Object.metadata{ labels: {"team": "a"}}}' },
        },
      ],
    },
  };
}

function mapBinding(name: string, policyName: string): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name, resourceVersion: '22' },
    spec: { policyName },
  };
}

/** A source the spec changes by hand (the informers' snapshot in the controller). */
class FakeNativeSource implements NativePolicySource {
  current: NativePolicySnapshot = NO_NATIVE_POLICIES;
  set(snapshot: Partial<NativePolicySnapshot>): void {
    this.current = { ...NO_NATIVE_POLICIES, ...snapshot };
  }
  snapshot(): NativePolicySnapshot {
    return this.current;
  }
  onChange(): () => void {
    return () => undefined;
  }
}

function setup() {
  const cluster = new FakeReportsCluster();
  cluster.put({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'staging', labels: { environment: 'staging' } },
  });
  cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { environment: 'prod' } } });
  const store = new PolicyStore();
  const engine = new Engine({ exceptions: () => store.snapshot().exceptions });
  const source = new FakeNativeSource();
  const events: EventInput[] = [];
  const scanner = new ResourceScanner(cluster, {
    validate: (policy, request) => engine.validate(policy.compiled, request),
    snapshot: () => store.snapshot(),
    mayWriteReport: () => true,
    recordEvents: (recorded) => events.push(...recorded),
    nativePolicies: nativePolicyScans(source),
    now: () => NOW,
  });
  const deployment = (namespace: string, replicas: number, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace, uid: `uid-${namespace}`, resourceVersion: '1', labels },
    spec: { replicas },
  });
  const report = (namespace: string) =>
    cluster.all('EphemeralReport').find((object) => object.metadata?.namespace === namespace) as unknown as
      EphemeralReportObject | undefined;
  return { cluster, source, scanner, deployment, report, events };
}

describe('background scans of native admission policies', () => {
  it("writes Kyverno's row for a ValidatingAdmissionPolicy without bindings, and labels the report with it", async () => {
    const { source, scanner, deployment, report, events } = setup();
    source.set({ validating: [vap('replicas')] });
    expect(await scanner.scan(deployment('prod', 7), DEPLOYMENTS)).toBe('evaluated');
    // Kyverno's PolicyViolation Events: on the Deployment and on the policy.
    expect(events.map((event) => [event.reason, event.regarding.kind, event.note])).toEqual([
      ['PolicyViolation', 'Deployment', 'policy replicas/replicas fail: failed expression: object.spec.replicas <= 5'],
      [
        'PolicyViolation',
        'ValidatingAdmissionPolicy',
        'Deployment prod/web: [replicas] fail; failed expression: object.spec.replicas <= 5',
      ],
    ]);
    expect(report('prod')).toMatchObject({
      metadata: {
        labels: {
          'audit.kyverno.io/source': 'background-scan',
          'validatingadmissionpolicy.apiserver.io/replicas': '11',
        },
      },
      spec: {
        summary: { fail: 1 },
        results: [
          {
            source: 'ValidatingAdmissionPolicy',
            policy: 'replicas',
            rule: 'replicas',
            result: 'fail',
            scored: true,
            message: 'failed expression: object.spec.replicas <= 5',
            properties: { process: 'background scan' },
            timestamp: { seconds: NOW / 1000, nanos: 0 },
          },
        ],
      },
    });
  });

  it("names the binding in the row's properties and labels the report with the bindings' versions", async () => {
    const { source, scanner, deployment, report } = setup();
    source.set({
      validating: [vap('replicas')],
      validatingBindings: [
        vapBinding('staging-only', 'replicas', { environment: 'staging' }),
        vapBinding('x', 'other'),
      ],
    });
    await scanner.scan(deployment('staging', 3), DEPLOYMENTS);
    expect(report('staging')).toMatchObject({
      metadata: { labels: { 'validatingadmissionpolicybinding.apiserver.io/staging-only': '12' } },
      spec: {
        results: [{ result: 'pass', properties: { process: 'background scan', binding: 'staging-only' } }],
      },
    });
    expect(report('staging')?.metadata.labels).not.toHaveProperty('validatingadmissionpolicybinding.apiserver.io/x');
    // Where the binding does not apply, the report holds no result (no PolicyReport comes of it).
    await scanner.scan(deployment('prod', 7), DEPLOYMENTS);
    expect(report('prod')?.spec.results).toEqual([]);
  });

  it('reports only policies that opt in with reports.kyverno.io/enabled: "true" and are not disabled', () => {
    expect(isNativePolicyReportable(vap('a'))).toBe(true);
    expect(isNativePolicyReportable(vap('b', {}))).toBe(false);
    expect(isNativePolicyReportable(vap('c', { 'reports.kyverno.io/enabled': 'yes' }))).toBe(false);
    expect(isNativePolicyReportable(vap('d', { ...OPT_IN, 'reports.kyverno.io/disabled': '' }))).toBe(false);
  });

  it('reads scored, category and severity from the annotations: an unscored fail is a warn', async () => {
    const { source, scanner, deployment, report } = setup();
    source.set({
      validating: [
        vap('replicas', OPT_IN, {
          'policies.kyverno.io/scored': 'false',
          'policies.kyverno.io/category': 'Sizing',
          'policies.kyverno.io/severity': 'low',
        }),
      ],
    });
    await scanner.scan(deployment('prod', 7), DEPLOYMENTS);
    expect(report('prod')?.spec.results[0]).toMatchObject({
      result: 'warn',
      scored: false,
      category: 'Sizing',
      severity: 'low',
    });
  });

  it("writes a MutatingAdmissionPolicy's result with its mapBinding, and scans again when a policy changes", async () => {
    const { source, scanner, deployment, report } = setup();
    source.set({ mutating: [map('add-team')], mutatingBindings: [mapBinding('add-team-binding', 'add-team')] });
    await scanner.scan(deployment('prod', 1), DEPLOYMENTS);
    expect(report('prod')).toMatchObject({
      metadata: {
        labels: {
          'mutatingadmissionpolicy.apiserver.io/add-team': '21',
          'mutatingadmissionpolicybinding.apiserver.io/add-team-binding': '22',
        },
      },
      spec: {
        results: [
          {
            source: 'MutatingAdmissionPolicy',
            policy: 'add-team',
            rule: 'add-team',
            result: 'fail',
            message: 'mutation is not applied',
            properties: { process: 'background scan', mapBinding: 'add-team-binding' },
          },
        ],
      },
    });
    // Unchanged resource and policies: nothing to evaluate again.
    expect(await scanner.scan(deployment('prod', 1), DEPLOYMENTS)).toBe('unchanged');
    // The resource now carries what the policy adds: a pass.
    expect(await scanner.scan(deployment('prod', 1, { team: 'a' }), DEPLOYMENTS)).toBe('evaluated');
    expect(report('prod')?.spec.results[0]).toMatchObject({
      result: 'pass',
      message: 'mutation is successfully applied',
    });
    // The policy left reports: the resource is evaluated again and no native policy is named.
    source.set({});
    expect(await scanner.scan(deployment('prod', 1, { team: 'a' }), DEPLOYMENTS)).toBe('no-policies');
  });

  it('does not look at resource types no native policy names', () => {
    const source = new FakeNativeSource();
    source.set({ validating: [vap('replicas')] });
    const scans = nativePolicyScans(source);
    expect(scans.names(DEPLOYMENTS)).toBe(true);
    expect(scans.names({ group: '', version: 'v1', resource: 'configmaps' })).toBe(false);
    expect(scans.select({ group: '', version: 'v1', resource: 'configmaps' })).toBeUndefined();
  });
});
