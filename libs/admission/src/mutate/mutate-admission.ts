import {
  admissionPatch,
  applyImagePatches,
  failurePolicyOf,
  VerifiedImages,
  type ImageVerificationResponse,
  type CompiledPolicy,
  type PolicyResponse,
  type ResourceRequest,
} from '@edict/engine';
import { EvaluationDeadlineExceeded, type JsonObject, type KubeObject } from '@edict/foundation';
import { isFiltered } from '../config/is-filtered';
import type { AdmissionConfig } from '../config/types';
import { allow, deny, type AdmissionDecision } from '../decision';
import { blockedMessage, failedRulesWithErrors, warningMessages } from '../messages/messages';
import { policiesForPath, standardMutateRules, withMutateRules, type AdmissionEngine } from '../policies';
import { reportResults, wantsMutationReports, type ReportResult } from '../reports/report-results';
import type { AdmissionOptions } from '../validate/validate-admission';
import { blocks } from '../validate/validate-admission';
import { crashed } from '../validate/evaluate';

export interface MutationOutcome {
  decision: AdmissionDecision;
  filtered?: string;
  dryRun: boolean;
  /** The object after every policy (the submitted object when nothing changed). */
  patchedResource?: KubeObject;
  responses: PolicyResponse[];
  /** Mutation results for admission reports (empty for dry runs and DELETE; at CREATE without the object's uid). */
  reportResults: ReportResult[];
}

/**
 * Kyverno's mutating webhook: the policies' mutate rules run in order, each policy on the object
 * the previous one left (as the CLI chains them); the answer is one RFC 6902 patch from the
 * submitted object to the final one. A policy with a failed or errored rule blocks the request when
 * Kyverno's BlockRequest says so (an error with the Fail failure policy), with Kyverno's
 * `mutation policy <name> error: failed to apply policy <name> rules [...]`; otherwise its changes
 * are dropped and the next policy continues from the object before it. Mutate-existing rules are
 * left to the background (see updateRequestsFor). `dryRun` changes nothing here: mutation has no
 * side effects, and the outcome reports it.
 */
export async function mutateAdmission(
  request: ResourceRequest,
  policies: readonly CompiledPolicy[],
  engine: AdmissionEngine,
  config: AdmissionConfig,
  options: AdmissionOptions = {},
): Promise<MutationOutcome> {
  const dryRun = request.dryRun === true;
  const original = request.resource;
  const filtered = isFiltered(request, config);
  if (filtered)
    return { decision: allow(), filtered, dryRun, patchedResource: original, responses: [], reportResults: [] };

  const mutating = policiesForPath(
    policies,
    options.failurePolicy,
    (compiled) => standardMutateRules(compiled).length > 0,
  );
  const responses: PolicyResponse[] = [];
  const evaluated: { compiled: CompiledPolicy; response: PolicyResponse }[] = [];
  let current = original;
  // Kyverno's failure policy is sticky across the loop: once a Fail policy ran, errors block.
  let failClosed = false;
  for (const compiled of mutating) {
    if (failurePolicyOf(compiled.policy) === 'Fail') failClosed = true;
    const policyRequest = current === original ? request : withObject(request, current as KubeObject);
    let response: PolicyResponse & { patchedResource?: KubeObject };
    try {
      response = await engine.mutate(withMutateRules(compiled, 'standard'), policyRequest, {
        deadline: options.deadline,
      });
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      response = crashed(compiled, policyRequest, error, 'Mutation');
    }
    if (response.rules.length === 0) continue;
    const failed = response.rules.some((rule) => rule.status === 'fail' || rule.status === 'error');
    if (failed && blocks(response, failClosed)) {
      const name = compiled.policy.metadata.name;
      const message = `mutation policy ${name} error: failed to apply policy ${name} rules ${failedRulesWithErrors(response)}`;
      return {
        decision: deny(message),
        dryRun,
        patchedResource: original,
        responses: [...responses, response],
        reportResults: [],
      };
    }
    responses.push(response);
    evaluated.push({ compiled, response });
    if (!failed && response.patchedResource) current = response.patchedResource;
  }

  const images = await verifyImages(request, current, policies, engine, options);
  if (images.denied) {
    return {
      decision: deny(images.denied),
      dryRun,
      patchedResource: original,
      responses: [...responses, ...images.responses],
      reportResults: [],
    };
  }
  for (const entry of images.evaluated) {
    responses.push(entry.response);
    evaluated.push(entry);
  }
  current = images.resource ?? current;

  const patch = original && current && current !== original ? admissionPatch(original, current) : [];
  const decision = allow(warningMessages(responses));
  if (patch.length > 0) decision.patch = patch;
  const now = (options.now ?? (() => new Date()))();
  const results = wantsMutationReports(request, options.admissionReports)
    ? evaluated.flatMap(({ compiled, response }) => reportResults(compiled, response, request, now))
    : [];
  return { decision, dryRun, patchedResource: current, responses, reportResults: results };
}

/**
 * The request as the next policy sees it: the patched object, also under `request.object` for
 * JMESPath (the raw admission request is copied shallowly, never mutated).
 */
function withObject(request: ResourceRequest, object: KubeObject): ResourceRequest {
  const next: ResourceRequest = { ...request, resource: object };
  if (request.admissionRequest) next.admissionRequest = { ...request.admissionRequest, object } as JsonObject;
  return next;
}

interface ImageVerificationOutcome {
  /** Kyverno's blocked message when a verifyImages policy denies the request. */
  denied?: string;
  responses: PolicyResponse[];
  evaluated: { compiled: CompiledPolicy; response: PolicyResponse }[];
  /** The object with the digests and the `kyverno.io/verify-images` annotation patched in. */
  resource?: KubeObject;
}

/**
 * Kyverno's image verification handler, after the mutate rules: every verifyImages policy on the
 * mutated object (each sees the same object), denied as BlockRequest decides (an enforced failure,
 * or an error once a Fail policy ran), else the digest patches and the annotation recording the
 * verified images joined to the mutation. An engine without image verification errors per policy.
 */
async function verifyImages(
  request: ResourceRequest,
  current: KubeObject | undefined,
  policies: readonly CompiledPolicy[],
  engine: AdmissionEngine,
  options: AdmissionOptions,
): Promise<ImageVerificationOutcome> {
  const verifying = policiesForPath(
    policies,
    options.failurePolicy,
    (compiled) => compiled.imageVerifyRules.length > 0,
  );
  if (verifying.length === 0 || !current || request.operation === 'DELETE') return { responses: [], evaluated: [] };
  const imageRequest = current === request.resource ? request : withObject(request, current);
  const results: ImageVerificationResponse[] = [];
  const evaluated: { compiled: CompiledPolicy; response: PolicyResponse }[] = [];
  let failClosed = false;
  for (const compiled of verifying) {
    if (failurePolicyOf(compiled.policy) === 'Fail') failClosed = true;
    let response: ImageVerificationResponse;
    try {
      if (!engine.verifyImages) throw new Error('image verification is not available in this engine');
      response = await engine.verifyImages(compiled, imageRequest, { deadline: options.deadline });
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      response = {
        ...crashed(compiled, imageRequest, error, 'ImageVerify'),
        patches: [],
        verifiedImages: new VerifiedImages(),
      };
    }
    results.push(response);
    if (response.rules.length > 0) evaluated.push({ compiled, response });
  }
  const responses = evaluated.map((entry) => entry.response);
  if (responses.some((response) => blocks(response, failClosed))) {
    return { denied: blockedMessage(responses), responses, evaluated };
  }
  try {
    return { responses, evaluated, resource: applyImagePatches(current, results).resource };
  } catch (error) {
    // Patches that do not apply leave the object unverified: deny rather than admit it so.
    return { denied: (error as Error).message, responses, evaluated };
  }
}
