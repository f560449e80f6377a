/**
 * ValidatingPolicies end to end on the in-memory cluster, with the admission and reports
 * controllers: a Deny policy's `/vpol/fail` webhook refuses a Pod with Kyverno's message and a
 * PolicyViolation Event on the policy; an Audit policy admits it and its result reaches the Pod's
 * PolicyReport with source KyvernoValidatingPolicy beside the classic results; a background-only
 * policy finds a Pod that existed before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CelPolicyCache } from '@edict/policy';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestReports } from '@edict/reports-controller/testing';
import { postJson, testPod } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A ValidatingPolicy on Pods requiring `label`. */
function requireLabel(name: string, label: string, actions: string[], evaluation?: Obj): Obj {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name, annotations: { 'policies.kyverno.io/severity': 'medium' } },
    spec: {
      validationActions: actions,
      ...(evaluation ? { evaluation } : {}),
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
        ],
      },
      validations: [
        {
          expression: `has(object.metadata.labels) && '${label}' in object.metadata.labels`,
          message: `Pods need a ${label} label`,
        },
      ],
    },
  };
}

/** The AdmissionReview the API server sends for creating `pod` in `default`. */
function podReview(pod: Obj, uid: string): Obj {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: pod.metadata.name,
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'kubernetes-admin', groups: ['system:authenticated'] },
      object: pod,
    },
  };
}

interface Answer {
  response: { allowed: boolean; status?: { message: string }; warnings?: string[] };
}

describe('ValidatingPolicies in the controllers', () => {
  let cluster: E2eCluster;
  let admission: Awaited<ReturnType<E2eCluster['startReplica']>>;
  let reports: RunningHttpController;
  const policyReport = (uid: string) =>
    cluster.apiServer.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, 'default') as Obj | undefined;

  async function createPolicy(policy: Obj): Promise<void> {
    await cluster.custom.createClusterCustomObject({
      group: 'policies.kyverno.io',
      version: 'v1',
      plural: 'validatingpolicies',
      body: policy,
    });
    const cache = admission.app.get(CelPolicyCache);
    await eventually(
      () => cache.validatingPolicies().some((compiled) => compiled.name === policy.metadata.name),
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

  it("refuses a Pod under a Deny policy with Kyverno's message, and records a PolicyViolation on the policy", async () => {
    await createPolicy(requireLabel('deny-without-owner', 'owner', ['Deny']));
    const pod = testPod('unowned') as Obj;
    const answer = await postJson<Answer>(admission.port, admission.caBundlePem(), '/vpol/fail', podReview(pod, 'u-1'));
    expect(answer.status).toBe(200);
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status?.message).toBe('Policy deny-without-owner failed: Pods need a owner label');
    const owned = testPod('owned', { owner: 'ana' }) as Obj;
    const admitted = await postJson<Answer>(
      admission.port,
      admission.caBundlePem(),
      '/vpol/fail',
      podReview(owned, 'u-2'),
    );
    expect(admitted.body.response.allowed).toBe(true);
    // The Ignore path serves only Ignore policies: this one is Fail (the default).
    const ignore = await postJson<Answer>(
      admission.port,
      admission.caBundlePem(),
      '/vpol/ignore',
      podReview(pod, 'u-3'),
    );
    expect(ignore.body.response.allowed).toBe(true);
    await eventually(
      () =>
        (cluster.apiServer.list('events.k8s.io/v1', 'Event', 'default') as Obj[]).some(
          (event) =>
            event.reason === 'PolicyViolation' &&
            event.regarding?.kind === 'ValidatingPolicy' &&
            event.regarding?.name === 'deny-without-owner' &&
            event.regarding?.apiVersion === 'policies.kyverno.io/v1beta1',
        ),
      'the PolicyViolation event',
    );
    await cluster.custom.deleteClusterCustomObject({
      group: 'policies.kyverno.io',
      version: 'v1',
      plural: 'validatingpolicies',
      name: 'deny-without-owner',
    });
  }, 30_000);

  it("puts an Audit policy's result into the Pod's PolicyReport with source KyvernoValidatingPolicy", async () => {
    await createPolicy(requireLabel('audit-team', 'team', ['Audit'], { background: { enabled: false } }));
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('audited') as Obj });
    const uid = created.metadata!.uid!;
    const review = podReview(created as unknown as Obj, 'u-4');
    const answer = await postJson<Answer>(admission.port, admission.caBundlePem(), '/vpol/fail', review);
    expect(answer.body.response).toMatchObject({ allowed: true });
    expect(answer.body.response.warnings).toBeUndefined();
    await eventually(
      () => (policyReport(uid)?.results ?? []).some((r: Obj) => r.source === 'KyvernoValidatingPolicy'),
      'the PolicyReport result',
      15_000,
    );
    const result = (policyReport(uid)!.results as Obj[]).find((r) => r.source === 'KyvernoValidatingPolicy')!;
    expect(result).toMatchObject({
      policy: 'audit-team',
      result: 'fail',
      scored: true,
      severity: 'medium',
      message: 'Pods need a team label',
      properties: { process: 'admission review' },
    });
    expect(policyReport(uid)!.metadata.labels).toHaveProperty(['vpol.kyverno.io/audit-team']);
  }, 30_000);

  it('scans existing Pods with a background ValidatingPolicy', async () => {
    const created = await cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('older') as Obj });
    const uid = created.metadata!.uid!;
    await createPolicy(
      requireLabel('scan-tier', 'tier', ['Audit'], { admission: { enabled: false }, background: { enabled: true } }),
    );
    await eventually(
      () => (policyReport(uid)?.results ?? []).some((r: Obj) => r.policy === 'scan-tier' && r.result === 'fail'),
      'the background result',
      20_000,
    );
    const result = (policyReport(uid)!.results as Obj[]).find((r) => r.policy === 'scan-tier')!;
    expect(result).toMatchObject({ source: 'KyvernoValidatingPolicy', properties: { process: 'background scan' } });
  }, 40_000);
});
