import { Engine } from '@edict/engine';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import { reviewResponse } from '../review/response';
import type { AdmissionRequest } from '../review/types';
import { compilePolicies, podCreateReview, pssPolicies } from '../testing/fixtures';
import * as P from '../testing/policies';
import { validateAdmission } from './validate-admission';

const engine = new Engine();
const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;
const policies = (...yaml: string[]) => compilePolicies(engine, yaml.join('\n---\n'));
const fixedNow = () => new Date('2026-11-20T10:12:45.250Z');

function request(change: (r: AdmissionRequest) => void = () => undefined) {
  const review = podCreateReview();
  change(review.request);
  return toResourceRequest(review.request);
}

const ownerDenied =
  '\n\nresource Pod/shop/checkout-7d9f8b6c5d-x2k4p was blocked due to the following policies \n\n' +
  'require-owner:\n' +
  "  owner-label: 'validation error: The label `owner` is required. rule owner-label\n" +
  "    failed at path /metadata/labels/owner/'\n";

const VERIFY_IMAGES = (failureAction: 'Enforce' | 'Audit') => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: signed-images
spec:
  rules:
    - name: check-signature
      match:
        any:
          - resources:
              kinds: [Pod]
      verifyImages:
        - imageReferences: ["*"]
          failureAction: ${failureAction}
          attestors:
            - entries:
                - keys:
                    publicKeys: "-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----"
`;

describe('validateAdmission', () => {
  it('checks a verifyImages rule on the validating side: an image without digest or record is denied under Enforce, reported under Audit', async () => {
    const enforced = await validateAdmission(request(), policies(VERIFY_IMAGES('Enforce')), engine, config, {
      failurePolicy: 'Fail',
    });
    expect(enforced.decision.allowed).toBe(false);
    expect(enforced.decision.message).toContain('signed-images:');
    expect(enforced.decision.message).toContain('missing digest for');

    const audited = await validateAdmission(request(), policies(VERIFY_IMAGES('Audit')), engine, config, {
      failurePolicy: 'Fail',
    });
    expect(audited.decision.allowed).toBe(true);
    const after = await audited.after!();
    expect(after.reportResults.map((result) => [result.rule, result.result])).toEqual([['check-signature', 'fail']]);
  });

  it("denies an Enforce failure with Kyverno's exact message", async () => {
    const outcome = await validateAdmission(request(), policies(P.REQUIRE_OWNER_ENFORCE), engine, config);
    expect(outcome.decision).toEqual({ allowed: false, message: ownerDenied });
    expect(outcome.after).toBeUndefined();
    expect(reviewResponse('uid-1', outcome.decision)).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'uid-1', allowed: false, status: { status: 'Failure', message: ownerDenied } },
    });
  });

  it('admits an object that satisfies the Enforce policy, with no warnings', async () => {
    const labelled = request(
      (r) => ((r.object as { metadata: { labels: Record<string, string> } }).metadata.labels.owner = 'ana'),
    );
    const outcome = await validateAdmission(labelled, policies(P.REQUIRE_OWNER_ENFORCE), engine, config);
    expect(outcome.decision).toEqual({ allowed: true });
  });

  it('admits Audit failures, warning only for policies with emitWarning', async () => {
    const outcome = await validateAdmission(
      request(),
      policies(P.COST_CENTER_AUDIT_WARN, P.TEAM_AUDIT_QUIET),
      engine,
      config,
      { now: fixedNow },
    );
    expect(outcome.decision).toEqual({
      allowed: true,
      warnings: [
        'policy cost-center.cost-center-label: validation error: Pods need a cost-center label. rule cost-center-label failed at path /metadata/labels/cost-center/',
      ],
    });
    const after = await outcome.after!();
    expect(after.reportResults.map((result) => [result.policy, result.rule, result.result])).toEqual([
      ['cost-center', 'cost-center-label', 'fail'],
      ['team-is-known', 'known-team', 'fail'],
    ]);
    expect(after.reportResults[0]).toMatchObject({
      message:
        'validation error: Pods need a cost-center label. rule cost-center-label failed at path /metadata/labels/cost-center/',
      resource: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: 'checkout-7d9f8b6c5d-x2k4p',
        namespace: 'shop',
        uid: '5f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
      },
      timestamp: { seconds: 1795169565, nanos: 0 },
      category: 'Best Practices',
      severity: 'medium',
      source: 'kyverno',
    });
    expect(after.auditResponses.map((response) => response.policy.name)).toEqual(['team-is-known']);
  });

  it('warns about Audit rules of an Enforce policy that is not violated in Enforce rules', async () => {
    const mixed = P.REQUIRE_OWNER_ENFORCE.replace('name: require-owner', 'name: mixed').replace(
      '      validate:\n        failureAction: Enforce',
      '      validate:\n        failureAction: Audit',
    ); // now Audit-only: served as audit, no warning
    const outcome = await validateAdmission(request(), policies(mixed), engine, config);
    expect(outcome.decision).toEqual({ allowed: true });
    const both = `${P.REQUIRE_OWNER_ENFORCE}
    - name: team-platform
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Audit
        message: "team must be platform."
        pattern:
          metadata:
            labels:
              team: platform
`;
    const labelled = request(
      (r) => ((r.object as { metadata: { labels: Record<string, string> } }).metadata.labels.owner = 'ana'),
    );
    const decision = (await validateAdmission(labelled, policies(both), engine, config)).decision;
    expect(decision).toEqual({
      allowed: true,
      warnings: [
        'policy require-owner.team-platform: validation error: team must be platform. rule team-platform failed at path /metadata/labels/team/',
      ],
    });
  });

  it('blocks on rule errors under failurePolicy Fail and lets them through (with a warning) under Ignore', async () => {
    const failing = await validateAdmission(
      request(),
      policies(P.BROKEN_ENFORCE.replace('FAILURE_POLICY', 'Fail')),
      engine,
      config,
    );
    expect(failing.decision.allowed).toBe(false);
    expect(failing.decision.message).toMatch(
      /^\n\nresource Pod\/shop\/checkout-7d9f8b6c5d-x2k4p was blocked due to the following policies \n\nneeds-config:\n {2}reads-missing-variable: 'failed to check deny conditions/,
    );
    const ignoring = await validateAdmission(
      request(),
      policies(P.BROKEN_ENFORCE.replace('FAILURE_POLICY', 'Ignore')),
      engine,
      config,
    );
    expect(ignoring.decision.allowed).toBe(true);
    expect(ignoring.decision.warnings?.[0]).toMatch(
      /^policy needs-config\.reads-missing-variable: failed to check deny conditions/,
    );
  });

  it('serves only the policies of its failure-policy path', async () => {
    const set = policies(P.REQUIRE_OWNER_ENFORCE, P.BROKEN_ENFORCE.replace('FAILURE_POLICY', 'Ignore'));
    const fail = await validateAdmission(request(), set, engine, config, { failurePolicy: 'Fail' });
    expect(fail.decision.message).toBe(ownerDenied);
    const ignore = await validateAdmission(request(), set, engine, config, { failurePolicy: 'Ignore' });
    expect(ignore.decision.allowed).toBe(true);
  });

  it('skips filtered requests without evaluating', async () => {
    const kubeSystem = request((r) => {
      r.namespace = 'kube-system';
      (r.object as { metadata: { namespace: string } }).metadata.namespace = 'kube-system';
    });
    const outcome = await validateAdmission(kubeSystem, policies(P.REQUIRE_OWNER_ENFORCE), engine, config);
    expect(outcome).toMatchObject({ decision: { allowed: true }, filtered: 'namespace kube-system is excluded' });
  });

  it('evaluates the old object on DELETE and writes no reports', async () => {
    const deleting = request((r) => {
      r.operation = 'DELETE';
      r.oldObject = r.object;
      r.object = null;
    });
    const outcome = await validateAdmission(deleting, policies(P.PROTECT_PAYMENTS_DELETE), engine, config);
    expect(outcome.decision.message).toBe(
      '\n\nresource Pod/shop/checkout-7d9f8b6c5d-x2k4p was blocked due to the following policies \n\n' +
        'protect-payments:\n  no-delete: Payments pods are deleted by their controller only.\n',
    );
    // Pattern rules do not judge deletions (Kyverno drops them), so the owner policy admits.
    const pattern = P.REQUIRE_OWNER_ENFORCE.replace('kinds: [Pod]', 'kinds: [Pod]\n              operations: [DELETE]');
    expect((await validateAdmission(deleting, policies(pattern), engine, config)).decision.allowed).toBe(true);
    const audit = await validateAdmission(deleting, policies(P.TEAM_AUDIT_QUIET), engine, config);
    expect(audit.decision.allowed).toBe(true);
    expect((await audit.after!()).reportResults).toEqual([]);
  });

  it('honours dryRun: same decision, no reports, no update requests', async () => {
    const dry = request((r) => (r.dryRun = true));
    const denied = await validateAdmission(dry, policies(P.REQUIRE_OWNER_ENFORCE), engine, config);
    expect(denied.dryRun).toBe(true);
    expect(denied.decision.message).toBe(ownerDenied);
    const admitted = await validateAdmission(
      dry,
      policies(P.TEAM_AUDIT_QUIET, P.GENERATE_AND_MUTATE_EXISTING),
      engine,
      config,
    );
    expect(admitted.updateRequests).toEqual([]);
    expect(await admitted.after!()).toMatchObject({ reportResults: [] });
  });

  it('with admission reports off, still runs the audits and their triggers but builds no report results', async () => {
    const outcome = await validateAdmission(
      request(),
      policies(P.COST_CENTER_AUDIT_WARN, P.TEAM_AUDIT_QUIET, P.GENERATE_AND_MUTATE_EXISTING),
      engine,
      config,
      { admissionReports: false },
    );
    expect(outcome.decision.warnings).toHaveLength(1);
    const after = await outcome.after!();
    expect(after.reportResults).toEqual([]);
    expect(after.auditResponses.map((response) => response.policy.name)).toEqual(['team-is-known']);
    expect(outcome.updateRequests?.length).toBeGreaterThan(0);
  });

  it('collects generate and mutate-existing triggers as UpdateRequest specs, before the answer', async () => {
    const outcome = await validateAdmission(request(), policies(P.GENERATE_AND_MUTATE_EXISTING), engine, config);
    const updateRequests = outcome.updateRequests ?? [];
    expect(updateRequests.map((spec) => [spec.requestType, spec.policy, spec.rule, spec.synchronize])).toEqual([
      ['mutate', 'background-work', 'touch-secrets', undefined],
      ['generate', 'background-work', 'default-netpol', true],
    ]);
    const generate = updateRequests[1]!;
    expect(generate.resource).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'shop',
      name: 'checkout-7d9f8b6c5d-x2k4p',
      uid: '5f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
    });
    expect(generate.ruleContext).toEqual([
      { rule: 'default-netpol', deleteDownstream: false, synchronize: true, trigger: generate.resource },
    ]);
    expect(generate.context.userInfo.userInfo.username).toBe('system:serviceaccount:kube-system:replicaset-controller');
    expect(generate.context.admissionRequestInfo.operation).toBe('CREATE');
    expect(generate.context.admissionRequestInfo.admissionRequest?.uid).toBe('3c1f4a9e-8b2d-4e6f-9a1c-5d7e8f9a0b1c');
    const fromBackground = await validateAdmission(
      request(),
      policies(P.GENERATE_AND_MUTATE_EXISTING),
      engine,
      config,
      {
        backgroundUsername: 'system:serviceaccount:kube-system:replicaset-controller',
      },
    );
    expect(fromBackground.updateRequests).toEqual([]);
  });

  it('admits the realistic Pod against the 17 PSS policies', async () => {
    const pss = pssPolicies(engine);
    expect(pss.length).toBe(17);
    const outcome = await validateAdmission(request(), pss, engine, config);
    expect(outcome.decision.allowed).toBe(true);
  });

  it('denies a privileged Pod under the PSS policies set to Enforce', async () => {
    const pss = pssPolicies(engine).map((compiled) =>
      engine.compile({ ...compiled.policy, spec: { ...compiled.policy.spec, validationFailureAction: 'Enforce' } }),
    );
    const privileged = request((r) => {
      const pod = r.object as unknown as { spec: { containers: { securityContext: Record<string, unknown> }[] } };
      pod.spec.containers[0]!.securityContext = { privileged: true };
    });
    const outcome = await validateAdmission(privileged, pss, engine, config);
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toContain('disallow-privileged-containers:\n');
  });
});
