import { Engine } from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { applyPatch, deepClone } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import { reviewResponse } from '../review/response';
import type { AdmissionRequest } from '../review/types';
import { compilePolicies, podCreateReview } from '../testing/fixtures';
import * as P from '../testing/policies';
import { mutateAdmission } from './mutate-admission';

const engine = new Engine();
const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;
const policies = (...yaml: string[]) => compilePolicies(engine, yaml.join('\n---\n'));

function reviewAndRequest(change: (r: AdmissionRequest) => void = () => undefined) {
  const review = podCreateReview();
  change(review.request);
  return { object: review.request.object as KubeObject, request: toResourceRequest(review.request) };
}

describe('mutateAdmission', () => {
  it('chains policies and answers one JSON patch that applies cleanly to the submitted object', async () => {
    const { object, request } = reviewAndRequest();
    const before = JSON.stringify(object);
    const outcome = await mutateAdmission(request, policies(P.ADD_LABELS, P.COPY_LABEL_TO_ANNOTATION), engine, config);
    expect(outcome.decision.message).toBeUndefined();
    expect(outcome.decision.allowed).toBe(true);
    expect(JSON.stringify(object)).toBe(before); // the request object is never modified

    const response = reviewResponse('uid-7', outcome.decision).response!;
    expect(response.patchType).toBe('JSONPatch');
    const patch = JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8'));
    const patched = applyPatch(deepClone(object), patch, true, false).newDocument as KubeObject;
    expect(patched).toEqual(outcome.patchedResource);
    expect(patched.metadata.labels?.['edict.io/admitted']).toBe('true');
    // The second policy read the first one's label through request.object.
    expect(patched.metadata.annotations?.['edict.io/seen']).toBe('true');
    expect(
      (patched as unknown as { spec: { containers: { imagePullPolicy?: string }[] } }).spec.containers[0]
        ?.imagePullPolicy,
    ).toBe('Always');
  });

  it('answers no patch when nothing changes or nothing matches', async () => {
    const { request } = reviewAndRequest();
    const none = await mutateAdmission(request, policies(P.REQUIRE_OWNER_ENFORCE), engine, config);
    expect(none.decision).toEqual({ allowed: true });
    expect(reviewResponse('u', none.decision).response).toEqual({ uid: 'u', allowed: true });
  });

  it("blocks on a mutation error under Fail with Kyverno's message, and drops the policy under Ignore", async () => {
    const { request } = reviewAndRequest();
    const failing = await mutateAdmission(
      request,
      policies(P.ADD_LABELS, P.BROKEN_MUTATE.replace('FAILURE_POLICY', 'Fail')),
      engine,
      config,
    );
    expect(failing.decision.allowed).toBe(false);
    expect(failing.decision.message).toMatch(
      /^mutation policy broken-mutate error: failed to apply policy broken-mutate rules \[bad-variable: .+\]$/,
    );
    const ignoring = await mutateAdmission(
      request,
      policies(P.BROKEN_MUTATE.replace('FAILURE_POLICY', 'Ignore'), P.ADD_LABELS),
      engine,
      config,
    );
    expect(ignoring.decision.allowed).toBe(true);
    expect(ignoring.decision.warnings?.[0]).toMatch(/^policy broken-mutate\.bad-variable: /);
    expect(ignoring.decision.patch).toEqual([
      { op: 'add', path: '/metadata/labels/edict.io~1admitted', value: 'true' },
    ]);
  });

  it('leaves mutate-existing rules to the background', async () => {
    const { request } = reviewAndRequest();
    const outcome = await mutateAdmission(request, policies(P.GENERATE_AND_MUTATE_EXISTING), engine, config);
    expect(outcome.decision).toEqual({ allowed: true });
    expect(outcome.responses).toEqual([]);
  });

  it('reports dryRun and returns the same patch, with no report results', async () => {
    const { request } = reviewAndRequest((r) => (r.dryRun = true));
    const outcome = await mutateAdmission(request, policies(P.ADD_LABELS), engine, config);
    expect(outcome.dryRun).toBe(true);
    expect(outcome.decision.patch).toHaveLength(1);
    expect(outcome.reportResults).toEqual([]);
    const real = await mutateAdmission(reviewAndRequest().request, policies(P.ADD_LABELS), engine, config);
    expect(real.reportResults.map((result) => [result.policy, result.rule, result.result, result.type])).toEqual([
      ['add-admitted-label', 'admitted', 'pass', 'Mutation'],
    ]);
  });

  it("reports a CREATE whose object has no uid yet (Kyverno's mutation handler), with Kyverno's process property", async () => {
    const { request } = reviewAndRequest((r) => {
      delete (r.object as KubeObject).metadata.uid;
    });
    const outcome = await mutateAdmission(request, policies(P.ADD_LABELS), engine, config);
    expect(outcome.reportResults).toHaveLength(1);
    expect(outcome.reportResults[0]!.resource.uid).toBeUndefined();
    expect(outcome.reportResults[0]!.properties).toEqual({ process: 'background scan' });
  });

  it('with admission reports off, patches alike and builds no report results', async () => {
    const outcome = await mutateAdmission(reviewAndRequest().request, policies(P.ADD_LABELS), engine, config, {
      admissionReports: false,
    });
    expect(outcome.decision.patch).toHaveLength(1);
    expect(outcome.reportResults).toEqual([]);
  });

  it('skips filtered requests', async () => {
    const { request } = reviewAndRequest((r) => (r.namespace = 'edict'));
    const outcome = await mutateAdmission(request, policies(P.ADD_LABELS), engine, config);
    expect(outcome).toMatchObject({ decision: { allowed: true }, filtered: 'namespace edict is excluded' });
  });
});
