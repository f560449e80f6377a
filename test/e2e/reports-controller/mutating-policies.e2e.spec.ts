/**
 * MutatingPolicies in the reports, end to end on the in-memory cluster with the admission and
 * reports controllers: a background scan reports a Pod that existed before the policy as `fail`
 * (`mutation is not applied`, source KyvernoMutatingPolicy, report label mpol.kyverno.io/<name>)
 * with `kyverno-scan` PolicyViolation Events; the `/mpol` webhook's result on a Pod it admitted
 * reaches the Pod's PolicyReport (`pass`, `success`, its audit annotations as properties).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CelPolicyCache } from '@edict/policy';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestReports } from '@edict/reports-controller/testing';
import { postJson, testPod } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A MutatingPolicy adding `team: a` to Pods named `prefix*`, with an audit annotation. */
function addTeam(name: string, prefix: string, background = true): Obj {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'MutatingPolicy',
    metadata: { name },
    spec: {
      ...(background ? {} : { evaluation: { background: { enabled: false } } }),
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      },
      matchConditions: [{ name: 'named', expression: `object.metadata.name.startsWith('${prefix}')` }],
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' },
        },
      ],
      auditAnnotations: [{ key: 'pod', valueExpression: "'pod/' + object.metadata.name" }],
    },
  };
}

interface Answer {
  response: { allowed: boolean; patch?: string };
}

describe('MutatingPolicies in the reports', () => {
  let cluster: E2eCluster;
  let admission: Awaited<ReturnType<E2eCluster['startReplica']>>;
  let reports: RunningHttpController;
  const policyReport = (uid: string) =>
    cluster.apiServer.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, 'default') as Obj | undefined;
  const mpolResult = (uid: string) =>
    ((policyReport(uid)?.results ?? []) as Obj[]).find((r) => r.source === 'KyvernoMutatingPolicy');

  async function createPolicy(policy: Obj): Promise<void> {
    await cluster.custom.createClusterCustomObject({
      group: 'policies.kyverno.io',
      version: 'v1',
      plural: 'mutatingpolicies',
      body: policy,
    });
    const cache = admission.app.get(CelPolicyCache);
    await eventually(
      () => cache.mutatingPolicies().some((compiled) => compiled.name === policy.metadata.name),
      `${policy.metadata.name} served`,
    );
  }

  beforeAll(async () => {
    cluster = await startE2eCluster();
    admission = await cluster.startReplica({ omitEvents: [] });
    reports = await startTestReports(cluster, { backgroundScanIntervalMs: 1_500 });
  }, 60_000);

  afterAll(async () => {
    await reports?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('reports a Pod the policy would still mutate as failing, with kyverno-scan Events', async () => {
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('older') as Obj });
    const uid = created.metadata!.uid!;
    await createPolicy(addTeam('scan-team', 'older'));
    await eventually(() => mpolResult(uid) !== undefined, 'the background result', 30_000);
    expect(mpolResult(uid)).toMatchObject({
      policy: 'scan-team',
      result: 'fail',
      message: 'mutation is not applied',
      scored: true,
      properties: { process: 'background scan' },
    });
    expect(policyReport(uid)!.metadata.labels).toHaveProperty(['mpol.kyverno.io/scan-team']);
    await eventually(
      () =>
        (cluster.apiServer.list('events.k8s.io/v1', 'Event', 'default') as Obj[]).some(
          (event) =>
            event.reason === 'PolicyViolation' &&
            event.reportingController === 'kyverno-scan' &&
            event.regarding?.kind === 'MutatingPolicy' &&
            event.regarding?.name === 'scan-team',
        ),
      'the PolicyViolation event on the policy',
    );
  }, 60_000);

  it("keeps the webhook's result on a Pod it mutated, its audit annotations as properties", async () => {
    // Not in background scans: the result can only come from the admission report.
    await createPolicy(addTeam('admit-team', 'admitted', false));
    // The API server calls no webhook here: the Pod is stored as the webhook's patch makes it.
    const pod = testPod('admitted', { team: 'a' }) as Obj;
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: pod });
    const uid = created.metadata!.uid!;
    const answer = await postJson<Answer>(admission.port, admission.caBundlePem(), '/mpol/fail', {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        name: 'admitted',
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'kubernetes-admin', groups: ['system:authenticated'] },
        object: created,
      },
    });
    expect(answer.body.response.allowed).toBe(true);
    await eventually(() => mpolResult(uid)?.result === 'pass', 'the pass result', 20_000);
    expect(mpolResult(uid)).toMatchObject({
      policy: 'admit-team',
      message: 'success',
      properties: { process: 'admission review', pod: 'pod/admitted' },
    });
  }, 60_000);
});
