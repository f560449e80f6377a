import { describe, expect, it } from 'vitest';
import { Engine, type Policy } from '@edict/engine';
import type { EventInput } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import { PolicyStore } from '@edict/policy';
import { exceptionOf, labelRule, policyOf } from '@edict/policy/testing';
import type { EphemeralReportObject } from '@edict/reports';
import { FakeReportsCluster } from '../testing/fake-reports-cluster';
import {
  compileCelPolicyException,
  compileImageValidatingPolicy,
  compileMutatingPolicy,
  compileValidatingPolicy,
  evaluateImageValidatingPolicies,
  evaluateMutatingPolicy,
  evaluateValidatingPolicy,
  type CompiledCelPolicyException,
  type CompiledMutatingPolicy,
  type CompiledValidatingPolicy,
} from '@edict/cel-policies';
import { ResourceScanner } from './resource-scanner';

/** A background ValidatingPolicy on Pods requiring the `team` label. */
function teamPolicy(): CompiledValidatingPolicy {
  return compileValidatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name: 'vpol-team', generation: 1, resourceVersion: '4', uid: 'vpol-uid' },
    spec: {
      validationActions: ['Audit'],
      evaluation: { admission: { enabled: false } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
        ],
      },
      validations: [
        { expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'needs a team' },
      ],
    },
  } as unknown as KubeObject);
}

function passException(): CompiledCelPolicyException {
  return compileCelPolicyException({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'PolicyException',
    metadata: { name: 'let-web', namespace: 'shop', generation: 1, uid: 'ex-uid' },
    spec: {
      policyRefs: [{ name: 'vpol-team', kind: 'ValidatingPolicy' }],
      matchConditions: [{ name: 'web', expression: "object.metadata.name == 'web'" }],
      reportResult: 'pass',
    },
  } as unknown as KubeObject);
}

/** A MutatingPolicy adding `team: a` to Pods, with an audit annotation and, optionally, a condition. */
function addTeamPolicy(
  name: string,
  options: { condition?: string; namespace?: string; status?: Record<string, unknown> } = {},
): CompiledMutatingPolicy {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: options.namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: {
      name,
      generation: 1,
      resourceVersion: '7',
      uid: `${name}-uid`,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      },
      ...(options.condition ? { matchConditions: [{ name: 'only', expression: options.condition }] } : {}),
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' },
        },
      ],
      auditAnnotations: [{ key: 'pod', valueExpression: "'pod/' + object.metadata.name" }],
    },
    ...(options.status ? { status: options.status } : {}),
  } as unknown as KubeObject);
}

function skipException(policy: string): CompiledCelPolicyException {
  return compileCelPolicyException({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'PolicyException',
    metadata: { name: 'let-web', namespace: 'shop', generation: 1, uid: 'ex-uid' },
    spec: {
      policyRefs: [{ name: policy, kind: 'MutatingPolicy' }],
      matchConditions: [{ name: 'web', expression: "object.metadata.name == 'web'" }],
    },
  } as unknown as KubeObject);
}

const NOW = Date.parse('2026-01-01T00:00:00Z');

/** The policy as the API server stores it, at `resourceVersion`. */
function stored(policy: Policy, resourceVersion: string): Policy {
  return { ...policy, metadata: { ...policy.metadata, resourceVersion } };
}

function setup() {
  const cluster = new FakeReportsCluster();
  cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { tier: 'web' } } });
  const store = new PolicyStore();
  store.setExceptionNamespaces(['*']);
  const engine = new Engine({ exceptions: () => store.snapshot().exceptions });
  const events: EventInput[] = [];
  let evaluations = 0;
  let capped = false;
  const scanner = new ResourceScanner(cluster, {
    validate: (policy, request) => {
      evaluations += 1;
      return engine.validate(policy.compiled, request);
    },
    snapshot: () => store.snapshot(),
    mayWriteReport: () => !capped,
    recordEvents: (recorded) => events.push(...recorded),
    now: () => NOW,
  });
  const pod = (labels: Record<string, string> = {}, resourceVersion = '1'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop', uid: 'pod-1', resourceVersion, labels },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  });
  const report = () => cluster.all('EphemeralReport')[0] as unknown as EphemeralReportObject | undefined;
  return {
    cluster,
    store,
    scanner,
    events,
    pod,
    report,
    evaluations: () => evaluations,
    cap: (on: boolean) => (capped = on),
  };
}

describe('ResourceScanner', () => {
  it("writes a background scan report named after the resource, owned by it, with each policy's version", async () => {
    const { store, scanner, pod, report, events } = setup();
    store.upsertPolicy(stored(policyOf('require-team', [labelRule('check-team', ['Pod'])]), '7'));
    expect(await scanner.scan(pod())).toBe('evaluated');
    expect(report()).toMatchObject({
      apiVersion: 'reports.kyverno.io/v1',
      metadata: {
        name: 'pod-1',
        namespace: 'shop',
        labels: {
          'audit.kyverno.io/source': 'background-scan',
          'audit.kyverno.io/resource.uid': 'pod-1',
          'audit.kyverno.io/resource.kind': 'Pod',
          'cpol.kyverno.io/require-team': '7',
        },
        annotations: { 'audit.kyverno.io/last-scan-time': '2026-01-01T00:00:00Z' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-1' }],
      },
      spec: {
        summary: { fail: 1 },
        results: [{ policy: 'require-team', rule: 'check-team', result: 'fail', scored: true, source: 'kyverno' }],
      },
    });
    expect(events.map((event) => `${event.reason} ${event.regarding.kind}`)).toEqual([
      'PolicyViolation Pod',
      'PolicyViolation ClusterPolicy',
    ]);
  });

  it('writes no report for a policy labelled reports.kyverno.io/disabled, but still emits its Events', async () => {
    const { store, scanner, pod, report, events } = setup();
    const policy = stored(policyOf('require-team', [labelRule('check-team', ['Pod'])]), '7');
    store.upsertPolicy({
      ...policy,
      metadata: { ...policy.metadata, labels: { 'reports.kyverno.io/disabled': 'true' } },
    });
    expect(await scanner.scan(pod())).toBe('evaluated');
    expect(report()).toBeUndefined();
    expect(events.map((event) => event.reason)).toEqual(['PolicyViolation', 'PolicyViolation']);
    // Beside a reported policy, only the reported one is named and has results.
    store.upsertPolicy(stored(policyOf('require-owner', [labelRule('check-owner', ['Pod'], 'owner')]), '9'));
    expect(await scanner.scan(pod({}, '2'))).toBe('evaluated');
    const labels = report()!.metadata.labels!;
    expect(labels['cpol.kyverno.io/require-owner']).toBe('9');
    expect(labels['cpol.kyverno.io/require-team']).toBeUndefined();
    expect(report()!.spec.results.map((result) => result.policy)).toEqual(['require-owner']);
  });

  it('does not evaluate again while the hash and the policies stay; a changed resource or policy is', async () => {
    const { store, scanner, pod, report, evaluations } = setup();
    store.upsertPolicy(stored(policyOf('require-team', [labelRule('check-team', ['Pod'])]), '7'));
    await scanner.scan(pod());
    expect(await scanner.scan(pod({}, '2'))).toBe('unchanged'); // a status write: same hash
    expect(scanner.isCurrent('pod-1', '2')).toBe(true);
    expect(evaluations()).toBe(1);
    expect(await scanner.scan(pod({ team: 'shop' }, '3'))).toBe('evaluated');
    expect(report()!.spec.results[0]!.result).toBe('pass');
    store.upsertPolicy(stored(policyOf('require-team', [labelRule('check-team', ['Pod'], 'owner')]), '8'));
    expect(await scanner.scan(pod({ team: 'shop' }, '3'))).toBe('evaluated');
    expect(evaluations()).toBe(3);
  });

  it('runs background policies only, background-only ones included, and a Policy in its own namespace only', async () => {
    const { store, scanner, pod, report } = setup();
    store.upsertPolicy(policyOf('admission-only', [labelRule('a', ['Pod'])], { background: false }));
    store.upsertPolicy(policyOf('background-only', [labelRule('b', ['Pod'])], { admission: false }));
    store.upsertPolicy(policyOf('elsewhere', [labelRule('c', ['Pod'])], {}, 'other'));
    store.upsertPolicy(policyOf('deployments', [labelRule('d', ['Deployment'])]));
    await scanner.scan(pod());
    expect(report()!.spec.results.map((result) => result.policy)).toEqual(['background-only']);
  });

  it('turns a result into skip once a PolicyException covers it, naming the exception', async () => {
    const { store, scanner, pod, report } = setup();
    store.upsertPolicy(policyOf('require-team', [labelRule('check-team', ['Pod'])]));
    await scanner.scan(pod());
    store.upsertException(exceptionOf('emergency', 'shop', 'require-team', ['check-team']));
    expect(await scanner.scan(pod())).toBe('evaluated');
    expect(report()!.spec.results[0]).toMatchObject({ result: 'skip', properties: { exceptions: 'emergency' } });
  });

  it('writes nothing and remembers nothing while capped, nor for a resource no policy names', async () => {
    const { store, scanner, pod, report, cap, cluster } = setup();
    expect(await scanner.scan(pod())).toBe('no-policies');
    store.upsertPolicy(policyOf('require-team', [labelRule('check-team', ['Pod'])]));
    cap(true);
    expect(await scanner.scan(pod())).toBe('capped');
    expect(report()).toBeUndefined();
    cap(false);
    expect(await scanner.scan(pod())).toBe('evaluated');
    expect(cluster.writes).toEqual(['create pod-1']);
  });

  it('scans with background ValidatingPolicies (source KyvernoValidatingPolicy) and again when a CEL exception arrives', async () => {
    const { cluster, pod, report, events } = setup();
    const exceptions: CompiledCelPolicyException[] = [];
    const scanner = new ResourceScanner(cluster, {
      validate: () => Promise.reject(new Error('no classic policy here')),
      snapshot: () => new PolicyStore().snapshot(),
      mayWriteReport: () => true,
      recordEvents: (recorded) => events.push(...recorded),
      validatingPolicies: {
        policies: () => [teamPolicy()],
        exceptionsSignature: () => exceptions.map((exception) => exception.name).join(','),
        evaluate: (compiled, input) => evaluateValidatingPolicy(compiled, input, { ports: {}, exceptions }),
      },
      now: () => NOW,
    });
    const pods = { group: '', version: 'v1', resource: 'pods' };
    expect(await scanner.scan(pod(), { group: '', version: 'v1', resource: 'configmaps' })).toBe('no-policies');
    expect(await scanner.scan(pod(), pods)).toBe('evaluated');
    expect(report()!.metadata.labels).toMatchObject({ 'vpol.kyverno.io/vpol-team': '4' });
    expect(report()!.spec.results).toMatchObject([
      { source: 'KyvernoValidatingPolicy', policy: 'vpol-team', result: 'fail', message: 'needs a team' },
    ]);
    expect(report()!.spec.results[0]!.properties).toMatchObject({ process: 'background scan' });
    expect(
      events.some((event) => event.regarding.kind === 'ValidatingPolicy' && event.reason === 'PolicyViolation'),
    ).toBe(true);
    expect(await scanner.scan(pod(), pods)).toBe('unchanged');
    exceptions.push(passException());
    expect(await scanner.scan(pod(), pods)).toBe('evaluated');
    expect(report()!.spec.results).toMatchObject([
      { source: 'KyvernoValidatingPolicy', result: 'pass', properties: { exceptions: 'let-web' } },
    ]);
  });

  it('reports MutatingPolicies as Kyverno scans them: fail while the object would still change, pass once it is as mutated, skip', async () => {
    const { cluster, pod, report, events } = setup();
    const policies = [
      addTeamPolicy('add-team'),
      addTeamPolicy('elsewhere', { condition: "object.metadata.namespace == 'other'" }),
      addTeamPolicy('generated', { status: { generated: true } }),
      addTeamPolicy('other-ns', { namespace: 'other' }),
    ];
    const exceptions: CompiledCelPolicyException[] = [];
    const scanner = new ResourceScanner(cluster, {
      validate: () => Promise.reject(new Error('no classic policy here')),
      snapshot: () => new PolicyStore().snapshot(),
      mayWriteReport: () => true,
      recordEvents: (recorded) => events.push(...recorded),
      mutatingPolicies: {
        policies: () => policies,
        exceptionsSignature: () => exceptions.map((exception) => exception.name).join(','),
        evaluate: (compiled, input) => evaluateMutatingPolicy(compiled, input, { ports: {}, exceptions }),
      },
      now: () => NOW,
    });
    const pods = { group: '', version: 'v1', resource: 'pods' };
    expect(await scanner.scan(pod(), pods)).toBe('evaluated');
    // The generated one is labelled but not evaluated; a NamespacedMutatingPolicy elsewhere is neither.
    expect(report()!.metadata.labels).toMatchObject({
      'mpol.kyverno.io/add-team': '7',
      'mpol.kyverno.io/elsewhere': '7',
      'mpol.kyverno.io/generated': '7',
    });
    expect(Object.keys(report()!.metadata.labels)).not.toContain('mpol.kyverno.io/other-ns');
    // Kyverno replaces the failing rule whole: no audit annotations on it.
    expect(report()!.spec.results).toEqual([
      expect.objectContaining({
        source: 'KyvernoMutatingPolicy',
        policy: 'add-team',
        rule: '',
        result: 'fail',
        message: 'mutation is not applied',
        properties: { process: 'background scan' },
      }),
      expect.objectContaining({
        source: 'KyvernoMutatingPolicy',
        policy: 'elsewhere',
        result: 'skip',
        message: 'skip',
      }),
    ]);
    const violations = events.filter((event) => event.reason === 'PolicyViolation');
    expect(violations.map((event) => [event.regarding.kind, event.regarding.apiVersion])).toEqual([
      ['Pod', 'v1'],
      ['MutatingPolicy', 'policies.kyverno.io/v1beta1'],
    ]);
    expect(violations[0]!.note).toBe('policy add-team/ fail: mutation is not applied');

    // The object already as the policy makes it: a pass, with the audit annotations as properties.
    expect(await scanner.scan(pod({ team: 'a' }, '2'), pods)).toBe('evaluated');
    expect(report()!.spec.results[0]).toMatchObject({
      policy: 'add-team',
      result: 'pass',
      message: 'success',
      properties: { process: 'background scan', pod: 'pod/web' },
    });

    // An exception (reportResult skip by default) names itself, on an `exception` rule.
    exceptions.push(skipException('add-team'));
    expect(await scanner.scan(pod(), pods)).toBe('evaluated');
    expect(report()!.spec.results[0]).toMatchObject({
      policy: 'add-team',
      rule: 'exception',
      result: 'skip',
      message: 'rule is skipped due to policy exception: shop/let-web',
      properties: { process: 'background scan', exceptions: 'let-web' },
    });
  });

  it('scans with background ImageValidatingPolicies (source KyvernoImageValidatingPolicy, label ivpol.kyverno.io/<name>)', async () => {
    const { cluster, pod, report, events } = setup();
    const policy = compileImageValidatingPolicy({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ImageValidatingPolicy',
      metadata: { name: 'ivpol-registry', generation: 1, resourceVersion: '9', uid: 'ivpol-uid' },
      spec: {
        validationActions: ['Audit'],
        validationConfigurations: { mutateDigest: false, verifyDigest: false, required: false },
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        matchImageReferences: [{ glob: '*' }],
        attestors: [],
        validations: [
          {
            expression: "images.containers.all(image, image.startsWith('registry.example/'))",
            message: 'images come from registry.example',
          },
        ],
      },
    } as unknown as KubeObject);
    const scanner = new ResourceScanner(cluster, {
      validate: () => Promise.reject(new Error('no classic policy here')),
      snapshot: () => new PolicyStore().snapshot(),
      mayWriteReport: () => true,
      recordEvents: (recorded) => events.push(...recorded),
      imageValidatingPolicies: {
        policies: () => [policy],
        exceptionsSignature: () => '',
        evaluate: async (policies, input) =>
          (await evaluateImageValidatingPolicies(policies, input, { ports: {} })).map((outcome) => outcome.response),
      },
      now: () => NOW,
    });
    expect(await scanner.scan(pod(), { group: '', version: 'v1', resource: 'pods' })).toBe('evaluated');
    expect(report()!.metadata.labels).toMatchObject({ 'ivpol.kyverno.io/ivpol-registry': '9' });
    expect(report()!.spec.results).toMatchObject([
      {
        source: 'KyvernoImageValidatingPolicy',
        policy: 'ivpol-registry',
        result: 'fail',
        message: 'images come from registry.example',
      },
    ]);
    expect(
      events.some((event) => event.regarding.kind === 'ImageValidatingPolicy' && event.reason === 'PolicyViolation'),
    ).toBe(true);
  });
});
