import { describe, expect, it } from 'vitest';
import { allow, type AdmissionRequest, type AdmissionReview } from '@edict/admission';
import type { AdmissionConfigService, CelPolicyCache, PolicyCache } from '@edict/policy';
import { compileGeneratingPolicy } from '@edict/cel-policies';
import type { AfterAdmissionService } from '../after-admission/after-admission.service';
import type { NamespaceLabels } from '../cluster/namespace-labels.service';
import type { RoleResolverService } from '../cluster/role-resolver.service';
import { ControllerConfig } from '../config/controller-config';
import type { AdmissionMetrics } from '../metrics/admission-metrics';
import type { ReviewWorkers } from '../workers/review-workers';
import type { InstrumentedEngine } from './admission-engine';
import type { ReviewOutcome } from './review-decision';
import type { ValidatingPolicyReviews } from './validating-policy-review';
import type { ImageValidatingPolicyReviews } from './image-validating-policy-review';
import { AdmissionService } from './admission.service';
import { type ApiResources } from '@edict/kube';

function review(namespace = 'team-b'): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace,
      name: 'p',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace } },
    } as AdmissionRequest,
  };
}

/**
 * The service with fakes; `decided` records each evaluation's deadline. Reviews in `stalled`
 * namespaces never finish evaluating (a slow apiCall) until `release` is called.
 */
function setup(stalled: readonly string[] = []) {
  const decided: Array<{ deadlineAt: number }> = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const workers: Pick<ReviewWorkers, 'decide'> = {
    decide: async (_kind, _failurePolicy, request, _inputs, deadlineAt) => {
      decided.push({ deadlineAt });
      if (stalled.includes(request.namespace ?? '')) await released;
      return { decision: allow(), policies: [] };
    },
  };
  const cache: Pick<PolicyCache, 'snapshot'> = { snapshot: () => ({}) as ReturnType<PolicyCache['snapshot']> };
  const config: Pick<AdmissionConfigService, 'current'> = {
    current: () => ({}) as ReturnType<AdmissionConfigService['current']>,
  };
  const namespaces: Pick<NamespaceLabels, 'labelsForRequest'> = { labelsForRequest: async () => ({}) };
  const roles: Pick<RoleResolverService, 'rolesFor'> = { rolesFor: () => ({ roles: [], clusterRoles: [] }) };
  const metrics: Pick<AdmissionMetrics, 'recordReview'> = { recordReview: () => undefined };
  const written: Array<ReviewOutcome | undefined> = [];
  const after: Pick<AfterAdmissionService, 'hasWork' | 'writeUpdateRequests'> = {
    hasWork: () => false,
    writeUpdateRequests: async (_request, outcome) => void written.push(outcome),
  };
  const generating = compileGeneratingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'GeneratingPolicy',
    metadata: { name: 'gen-pod' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      },
      generate: [{ expression: 'generator.Apply(object.metadata.namespace, [])' }],
    },
  });
  const celPolicies: Pick<CelPolicyCache, 'generatingPolicies'> = { generatingPolicies: () => [generating] };
  const service = new AdmissionService(
    new ControllerConfig(),
    cache as PolicyCache,
    config as AdmissionConfigService,
    namespaces as NamespaceLabels,
    {} as InstrumentedEngine,
    metrics as AdmissionMetrics,
    roles as RoleResolverService,
    after as AfterAdmissionService,
    {} as ApiResources,
    workers as ReviewWorkers,
    {} as ValidatingPolicyReviews,
    {} as ImageValidatingPolicyReviews,
    celPolicies as CelPolicyCache,
  );
  return { service, decided, release, written };
}

const responseOf = (answer: { body: unknown }) =>
  (answer.body as AdmissionReview).response as { allowed: boolean; status?: { message?: string } };

describe('AdmissionService deadlines', () => {
  it("answers a review already past the API server's timeout by its failure policy, without evaluating it", async () => {
    const { service, decided } = setup();
    const arrivedLongAgo = performance.now() - 20_000;
    const failed = await service.review('validate', 'Fail', review(), '10s', undefined, arrivedLongAgo);
    expect(responseOf(failed)).toMatchObject({
      allowed: false,
      status: {
        message:
          "policy evaluation did not finish within 9000ms; the request is denied because the webhook's failure policy is Fail",
      },
    });
    const ignored = await service.review('validate', 'Ignore', review(), '10s', undefined, arrivedLongAgo);
    expect(responseOf(ignored).allowed).toBe(true);
    expect(decided).toEqual([]);
  });

  it("counts the deadline from the request's arrival, not from when the handler runs", async () => {
    const { service, decided } = setup();
    const arrived = performance.now() - 3_000;
    const answer = await service.review('validate', 'Fail', review(), '10s', undefined, arrived);
    expect(responseOf(answer).allowed).toBe(true);
    expect(Math.round(decided[0]!.deadlineAt - arrived)).toBe(9_000);
  });

  it("clamps ?timeout= to Kubernetes' 30 s, and takes the default for garbage", async () => {
    const { service, decided } = setup();
    const arrived = performance.now();
    await service.review('validate', 'Fail', review(), '1000h', undefined, arrived);
    await service.review('validate', 'Fail', review(), 'soon', undefined, arrived);
    expect(decided.map(({ deadlineAt }) => Math.round(deadlineAt - arrived))).toEqual([29_000, 9_000]);
  });

  it("holds a namespace's stalled reviews to its share of the slots, so another namespace's review is decided at once", async () => {
    const settings = new ControllerConfig();
    const { service, release } = setup(['team-a']);
    const stalled = Array.from({ length: settings.maxInFlight }, () =>
      service.review('validate', 'Fail', review('team-a'), '10s'),
    );
    expect(service.limiter.tenant('team-a')).toEqual({
      inFlight: settings.maxInFlightPerNamespace,
      queued: settings.maxInFlight - settings.maxInFlightPerNamespace,
    });
    const other = await service.review('validate', 'Fail', review('team-b'), '10s');
    expect(responseOf(other).allowed).toBe(true);
    expect(service.limiter.tenant('team-a').inFlight).toBe(settings.maxInFlightPerNamespace);
    release();
    expect((await Promise.all(stalled)).every((answer) => responseOf(answer).allowed)).toBe(true);
  });

  it('allows a /gpol review and stores one cel-generate UpdateRequest per policy the path names before answering', async () => {
    const { service, written, decided } = setup();
    const answer = await service.reviewGeneratingPolicies(['gen-pod', 'unknown'], review(), '10s');
    expect(responseOf(answer).allowed).toBe(true);
    expect(decided).toEqual([]);
    const specs = written[0]?.generatingPolicyRequests ?? [];
    expect(specs.map((spec) => [spec.requestType, spec.policy, spec.resource.name])).toEqual([
      ['cel-generate', 'gen-pod', 'p'],
    ]);
  });
});
