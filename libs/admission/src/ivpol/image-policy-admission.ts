/**
 * Kyverno's ImageValidatingPolicy webhooks (pkg/webhooks/resource/ivpol):
 *  - the mutating one (`/ivpol/mutate/...`, CREATE, UPDATE and CONNECT only) pins the tags of the
 *    images the served policies match to their digests (mutateDigest); it never refuses: a policy
 *    whose image could not be resolved, or that errored, only warns when it has the Warn action;
 *  - the validating one (`/ivpol/validate/...`) evaluates every served policy together (an image
 *    one policy verified counts for another's `required`), then answers as the ValidatingPolicy
 *    webhook does: Deny refuses on a failure (and on an error under failurePolicy Fail), Warn warns,
 *    Audit only reports. It never trusts what the request carries about earlier verifications (the
 *    `kyverno.io/image-verification-outcomes` annotation): every image is verified again.
 */
import {
  evaluateImageValidatingPolicies,
  mutateImageDigests,
  type CompiledImageValidatingPolicy,
  type ImageValidatingPolicyContext,
} from '@edict/cel-policies';
import type { JsonPatchOperation, PolicyResponse, ResourceRequest } from '@edict/engine';
import { EvaluationDeadlineExceeded, type KubeObject } from '@edict/foundation';
import { isFiltered } from '../config/is-filtered';
import type { AdmissionConfig } from '../config/types';
import { allow, type AdmissionDecision } from '../decision';
import { admissionRequestOf } from '../request/to-resource-request';
import type { ReportResult } from '../reports/report-results';
import { celPolicyInput, crashedValidatingPolicy, policyReviewOutcome, servedPolicies } from '../vpol/policy-review';
import { IMAGE_VALIDATING_POLICY_SOURCE } from '../vpol/report-results';
import type { ValidatingPolicyPath } from '../vpol/select';

/** One ImageValidatingPolicy's answer for the request (only policies that applied have one). */
export interface ImagePolicyEvaluation {
  readonly compiled: CompiledImageValidatingPolicy;
  readonly response: PolicyResponse;
}

export interface ImagePolicyAdmissionOptions {
  /** The namespace of the request as an object (`namespaceObject`); null for cluster-scoped requests. */
  namespaceObject?: KubeObject | null;
  /** Ports (CEL libraries, registry), authorizer and exceptions; the deadline is set from `deadline`. */
  context: Omit<ImageValidatingPolicyContext, 'deadline'>;
  /** The review's deadline: once passed, this rejects with EvaluationDeadlineExceeded. */
  deadline?: ImageValidatingPolicyContext['deadline'];
  now?: () => Date;
  /** Kyverno's --admissionReports: false builds no report results (default true). */
  admissionReports?: boolean;
  /** Told of each policy that applied, with the evaluation time in seconds (shared by the policies evaluated together). */
  onEvaluated?: (evaluation: ImagePolicyEvaluation, seconds: number) => void;
}

export interface ImagePolicyOutcome {
  decision: AdmissionDecision;
  filtered?: string;
  dryRun: boolean;
  blocked: boolean;
  evaluations: ImagePolicyEvaluation[];
  /** PolicyReport results (source KyvernoImageValidatingPolicy) of an admitted request. */
  reportResults: ReportResult[];
}

/** The mutating webhook's operations (Kyverno's WithOperationFilter on the ivpol mutate handler). */
const MUTATED_OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'CONNECT']);

/** The validating `/ivpol/validate/...` decision. */
export async function imagePolicyValidation(
  request: ResourceRequest,
  policies: readonly CompiledImageValidatingPolicy[],
  path: ValidatingPolicyPath,
  config: AdmissionConfig,
  options: ImagePolicyAdmissionOptions,
): Promise<ImagePolicyOutcome> {
  const dryRun = request.dryRun === true;
  const none = { dryRun, blocked: false, evaluations: [], reportResults: [] };
  const filtered = isFiltered(request, config);
  if (filtered) return { decision: allow(), filtered, ...none };
  const served = servedPolicies(request, policies, path);
  if (served.length === 0) return { decision: allow(), ...none };

  const context: ImageValidatingPolicyContext = { ...options.context, deadline: options.deadline };
  const started = performance.now();
  let responses: Array<PolicyResponse | undefined>;
  try {
    const outcomes = await evaluateImageValidatingPolicies(
      served,
      celPolicyInput(request, options.namespaceObject),
      context,
    );
    responses = outcomes.map((outcome) => outcome.response);
  } catch (error) {
    if (error instanceof EvaluationDeadlineExceeded) throw error;
    responses = served.map((compiled) => crashedValidatingPolicy(compiled, request, error));
  }
  const seconds = (performance.now() - started) / 1000;
  const evaluations: ImagePolicyEvaluation[] = [];
  served.forEach((compiled, i) => {
    const response = responses[i];
    if (!response || response.rules.length === 0) return;
    const evaluation = { compiled, response };
    evaluations.push(evaluation);
    options.onEvaluated?.(evaluation, seconds / served.length);
  });

  const outcome = policyReviewOutcome(request, evaluations, options, IMAGE_VALIDATING_POLICY_SOURCE);
  return { ...outcome, dryRun, evaluations };
}

/** The mutating `/ivpol/mutate/...` decision: digest patches, warnings of Warn policies, never a denial. */
export async function imagePolicyMutation(
  request: ResourceRequest,
  policies: readonly CompiledImageValidatingPolicy[],
  path: ValidatingPolicyPath,
  config: AdmissionConfig,
  options: ImagePolicyAdmissionOptions,
): Promise<{ decision: AdmissionDecision; filtered?: string; responses: PolicyResponse[] }> {
  const operation = admissionRequestOf(request)?.operation ?? request.operation ?? '';
  if (!MUTATED_OPERATIONS.has(operation)) return { decision: allow(), responses: [] };
  const filtered = isFiltered(request, config);
  if (filtered) return { decision: allow(), filtered, responses: [] };
  const served = servedPolicies(request, policies, path);
  const context: ImageValidatingPolicyContext = { ...options.context, deadline: options.deadline };
  const input = celPolicyInput(request, options.namespaceObject);
  const patches: JsonPatchOperation[] = [];
  const warnings: string[] = [];
  const responses: PolicyResponse[] = [];
  for (const compiled of served) {
    if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
    let response: PolicyResponse | undefined;
    try {
      const mutation = await mutateImageDigests(compiled, input, context);
      patches.push(...mutation.patches);
      response = mutation.response;
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      response = crashedValidatingPolicy(compiled, request, error);
    }
    if (!response) continue;
    responses.push(response);
    if (!compiled.validationActions.includes('Warn')) continue;
    for (const rule of response.rules) {
      if (rule.status === 'fail' || rule.status === 'error') {
        warnings.push(`Policy ${compiled.name} ${rule.status === 'fail' ? 'failed' : 'error'}: ${rule.message}`);
      }
    }
  }
  const decision = allow(warnings);
  if (patches.length > 0) decision.patch = patches;
  return { decision, responses };
}
