import { describe, expect, it } from 'vitest';
import { Engine, type Policy } from '@edict/engine';
import type { EventInput } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import { PolicyStore } from '@edict/policy';
import { exceptionOf, labelRule, policyOf } from '@edict/policy/testing';
import type { EphemeralReportObject } from '@edict/reports';
import { FakeReportsCluster } from '../testing/fake-reports-cluster';
import { ResourceScanner } from './resource-scanner';

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
});
