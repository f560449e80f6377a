/**
 * The fuzz properties, shared by the spec (a few hundred cases each; the isolation property a
 * time-bounded sample) and `npm run fuzz` (100,000+).
 * Each `check` runs one generated case against the real code and returns how it was answered (the
 * runner counts these), or throws with what went wrong.
 */
import fc from 'fast-check';
import { parseAdmissionReview, toResourceRequest } from '@edict/admission';
import { admissionPatch, Engine, validatePolicy, type Policy, type PolicyResponse } from '@edict/engine';
import { isError, type JsonObject, type JsonValue, type KubeObject } from '@edict/foundation';
import type { ControllerTarget, InjectAnswer } from './controller-target';
import {
  admissionRequest,
  admissionReview,
  junkBody,
  malformedReview,
  tooDeepReviewText,
} from './generators/admission-review';
import { policyDocument, policyOrJunk } from './generators/policy';
import { tenantCase, type TenantCase } from './generators/tenant-policy';
import type { IsolationTarget } from './isolation-target';

/** How a case was answered: an evaluated review, or bad input refused with a clear 4xx / diagnostics. */
export type Outcome = 'answered' | 'rejected';

export interface FuzzProperty<T = unknown> {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<T>;
  check(input: T): Promise<Outcome>;
}

const WEBHOOK_PATHS = ['/validate/fail', '/validate/ignore', '/mutate/fail', '/mutate/ignore'] as const;
/** A 4xx must say what is wrong: the field, or that the body itself is not a review. */
const NAMES_A_FIELD = /\b(body|JSON|apiVersion|kind|request(\.[A-Za-z]+)*)\b/i;
const RULE_STATUSES = new Set(['pass', 'fail', 'warn', 'error', 'skip']);

class Finding extends Error {}

function fail(message: string, answer?: InjectAnswer): never {
  throw new Finding(answer ? `${message}\n  answered ${answer.status}: ${answer.body.slice(0, 2_000)}` : message);
}

/** A 200 AdmissionReview for `uid` with a boolean `allowed` (and a decodable JSON patch if any). */
function expectReview(answer: InjectAnswer, uid: string, failPath: boolean): void {
  let body: { apiVersion?: unknown; kind?: unknown; response?: Record<string, unknown> };
  try {
    body = JSON.parse(answer.body);
  } catch {
    fail('the answer is not JSON', answer);
  }
  const response = body.response;
  if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview' || !response)
    fail('the answer is not an AdmissionReview', answer);
  if (response['uid'] !== uid) fail(`response.uid is not the request's ${JSON.stringify(uid)}`, answer);
  if (typeof response['allowed'] !== 'boolean') fail('response.allowed is not a boolean', answer);
  const status = response['status'] as { message?: unknown } | undefined;
  if (failPath && typeof status?.message === 'string' && status.message.startsWith('internal error'))
    fail('the controller failed while evaluating (caught, answered by the failure policy)', answer);
  if (response['patch'] !== undefined) {
    const operations = JSON.parse(Buffer.from(String(response['patch']), 'base64').toString()) as unknown;
    if (response['patchType'] !== 'JSONPatch' || !Array.isArray(operations))
      fail('the patch is not a JSON Patch', answer);
    for (const op of operations as Array<Record<string, unknown>>)
      if (typeof op['op'] !== 'string' || typeof op['path'] !== 'string')
        fail('a patch operation is malformed', answer);
  }
}

function expectClearRejection(answer: InjectAnswer): void {
  let message: unknown;
  try {
    message = (JSON.parse(answer.body) as { message?: unknown }).message;
  } catch {
    fail('the 4xx answer is not JSON', answer);
  }
  if (typeof message !== 'string' || !NAMES_A_FIELD.test(message))
    fail('the 4xx answer does not name the field', answer);
}

function expectNoLoggedErrors(target: ControllerTarget, when = 'while answering this case'): void {
  const errors = target.takeErrors();
  if (errors.length > 0) fail(`the controller logged errors ${when}:\n  ${errors.join('\n  ').slice(0, 4_000)}`);
}

/** Work after the answer (reports, events) logs late: reported by the next case, not blamed on it. */
function expectNoLateErrors(target: ControllerTarget): void {
  expectNoLoggedErrors(target, 'after an earlier answer (after-admission work; this counterexample is not the cause)');
}

/**
 * Runs one HTTP case. Whatever it logged is taken along when it fails, so the next case (and the
 * shrinking of this one) starts clean and is not blamed for it.
 */
async function httpCase(target: ControllerTarget, run: () => Promise<Outcome>): Promise<Outcome> {
  expectNoLateErrors(target);
  try {
    const outcome = await run();
    expectNoLoggedErrors(target);
    return outcome;
  } catch (error) {
    const logged = target.takeErrors();
    if (logged.length > 0 && error instanceof Error)
      error.message += `\n  it also logged:\n  ${logged.join('\n  ').slice(0, 4_000)}`;
    throw error;
  }
}

interface WebhookCase {
  path: (typeof WEBHOOK_PATHS)[number];
  review: JsonObject;
}

/** Well-formed reviews: every one is evaluated and answered 200 with its uid, on every webhook path. */
export function wellFormedReviews(target: ControllerTarget): FuzzProperty<WebhookCase> {
  return {
    name: 'webhook: well-formed reviews',
    arbitrary: fc.record({ path: fc.constantFrom(...WEBHOOK_PATHS), review: admissionReview }),
    check: ({ path, review }) =>
      httpCase(target, async () => {
        const answer = await target.post(path, JSON.stringify(review));
        if (answer.status !== 200) fail(`a well-formed review on ${path} was not answered 200`, answer);
        expectReview(answer, (review['request'] as JsonObject)['uid'] as string, path.endsWith('/fail'));
        return 'answered';
      }),
  };
}

type MalformedCase = { path: string; payload: string; uid: unknown; broken: string };

/** Malformed reviews and bodies that are not reviews: a 200 review for the uid, or a 4xx naming the field. */
export function malformedReviews(target: ControllerTarget): FuzzProperty<MalformedCase> {
  const paths = [...WEBHOOK_PATHS, '/policyvalidate', '/exceptionvalidate'] as const;
  return {
    name: 'webhook: malformed reviews',
    arbitrary: fc
      .record({
        path: fc.constantFrom(...paths),
        body: fc.oneof(
          { weight: 6, arbitrary: malformedReview.map(({ path, review }) => ({ broken: path.join('.'), review })) },
          { weight: 1, arbitrary: junkBody.map((text) => ({ broken: 'body', text })) },
          { weight: 1, arbitrary: tooDeepReviewText.map((text) => ({ broken: 'request.object.data', text })) },
        ),
      })
      .map(({ path, body }) => {
        const review = 'review' in body ? body.review : undefined;
        const request = (review as JsonObject | null)?.['request'] as JsonObject | undefined;
        return {
          path,
          payload: 'text' in body ? body.text : JSON.stringify(review),
          uid: typeof request === 'object' && request !== null ? request['uid'] : undefined,
          broken: body.broken,
        };
      }),
    check: ({ path, payload, uid }) =>
      httpCase(target, async () => {
        const answer = await target.post(path, payload);
        if (answer.status === 200) {
          expectReview(answer, uid as string, path.endsWith('/fail'));
          return 'answered';
        }
        if (answer.status < 400 || answer.status >= 500) fail(`answered ${answer.status}`, answer);
        expectClearRejection(answer);
        return 'rejected';
      }),
  };
}

/** Policies through the policy validation webhook: admitted, or refused with a message naming the field. */
export function policyValidationWebhook(
  target: ControllerTarget,
): FuzzProperty<{ operation: string; policy: JsonValue }> {
  return {
    name: 'webhook: policy validation',
    arbitrary: fc.record({ operation: fc.constantFrom('CREATE', 'UPDATE'), policy: policyOrJunk }),
    check: ({ operation, policy }) =>
      httpCase(target, async () => {
        const review = {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: {
            uid: 'policy-1',
            kind: { group: 'kyverno.io', version: 'v1', kind: 'ClusterPolicy' },
            resource: { group: 'kyverno.io', version: 'v1', resource: 'clusterpolicies' },
            operation,
            userInfo: { username: 'fuzz' },
            object: policy,
            ...(operation === 'UPDATE' ? { oldObject: policy } : {}),
          },
        };
        const answer = await target.post('/policyvalidate', JSON.stringify(review));
        if (answer.status !== 200) {
          if (answer.status < 400 || answer.status >= 500) fail(`answered ${answer.status}`, answer);
          expectClearRejection(answer);
          return 'rejected';
        }
        expectReview(answer, 'policy-1', true);
        const response = (JSON.parse(answer.body) as { response: { allowed: boolean; status?: { message?: string } } })
          .response;
        // In kube's words the field comes after the object (`ClusterPolicy.kyverno.io "p" is invalid: [spec...`),
        // after the decoder (`unknown field "spec...`) or quoted in a junctor's error (`<nil>: ...: "spec...`).
        const message = response.status?.message ?? '';
        if (!response.allowed && !/(^|[\s"[])(spec|metadata|apiVersion|kind)[.[:\]"]/.test(message))
          fail("a refused policy's message does not name the field it concerns", answer);
        return response.allowed ? 'answered' : 'rejected';
      }),
  };
}

interface EngineCase {
  policy: JsonObject;
  request: JsonObject;
}

/**
 * What the policy cache does with a policy (validate; compile when valid) and what admission does
 * with it (validate, mutate and generate a random request): nothing throws out of the engine, every
 * rule ends in a known status, and a mutation's admission patch can be built.
 */
export function compileAndEvaluate(): FuzzProperty<EngineCase> {
  const engine = new Engine();
  return {
    name: 'engine: compile and evaluate',
    arbitrary: fc.record({ policy: policyDocument, request: admissionRequest }),
    async check({ policy, request }) {
      const diagnostics = validatePolicy(policy as unknown as Policy);
      for (const diagnostic of diagnostics)
        if (typeof diagnostic.message !== 'string' || diagnostic.message === '') fail('a diagnostic without a message');
      if (diagnostics.some(isError)) return 'rejected';
      const compiled = engine.compile(policy as unknown as Policy);
      const parsed = parseAdmissionReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
      if (!parsed.ok) fail(`the generated request is not accepted: ${parsed.message}`);
      const resourceRequest = toResourceRequest(parsed.review.request);
      const responses: PolicyResponse[] = [
        await engine.validate(compiled, resourceRequest),
        await engine.generate(compiled, resourceRequest),
      ];
      const mutation = await engine.mutate(compiled, resourceRequest);
      responses.push(mutation);
      for (const response of responses)
        for (const rule of response.rules)
          if (!RULE_STATUSES.has(rule.status) || typeof rule.message !== 'string')
            fail(`rule ${rule.name} ended with ${JSON.stringify(rule.status)} / ${typeof rule.message}`);
      if (resourceRequest.resource && mutation.patchedResource)
        admissionPatch(resourceRequest.resource, mutation.patchedResource as KubeObject);
      return 'answered';
    },
  };
}

/**
 * Random namespaced Policies and CleanupPolicies from a tenant of `team-a`, applied through the
 * embedded cluster (admission mutate, the background controller's UpdateRequests, a cleanup run):
 * no object outside `team-a` changes, no cluster-scoped object appears or changes, and no Kyverno
 * kind is written in `team-a`. A policy that does not compile is counted as refused.
 */
export function tenantIsolation(target: IsolationTarget): FuzzProperty<TenantCase> {
  return {
    name: 'isolation: tenant policies',
    arbitrary: tenantCase,
    async check(input) {
      const result = await target.run(input);
      if (!result) return 'rejected';
      if (result.violations.length > 0) {
        const shown = result.violations
          .slice(0, 10)
          .map((change) => `${change.type} ${change.groupResource} ${change.namespace || '(cluster)'}/${change.name}`);
        fail(`a tenant policy changed objects outside its namespace:\n  ${shown.join('\n  ')}`);
      }
      return 'answered';
    },
  };
}
