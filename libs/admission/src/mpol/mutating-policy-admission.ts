/**
 * Kyverno's MutatingPolicy webhook (pkg/webhooks/resource/mpol) for one admission request:
 *  - requests of the background controller's service account are admitted untouched (its own
 *    patches must not be mutated again), as are filtered ones (the ConfigMap's resourceFilters);
 *  - the policies the path serves (failure policy, fine-grained names, a namespaced policy only in
 *    its own namespace, admission enabled, none with targetMatchConstraints: those patch other
 *    objects, in the background) run in order as the admission chain runs them, reinvoked as their
 *    reinvocationPolicy asks (evaluateMutatingPolicies);
 *  - a policy that errored under failurePolicy Fail refuses the request with Kyverno's message
 *    (`Resource: <ns>/<name>, Kind: <kind>, Errors: [Policy <name>: <message> ...]`); under Ignore it
 *    only leaves the object as it was;
 *  - otherwise the answer carries the JSON Patch from the submitted object to the mutated one,
 *    refused when it would be larger than a request body kube accepts (MUTATION_LIMITS).
 * Report results (source KyvernoMutatingPolicy) are built for the policies that applied, for the
 * after-admission work; nothing here writes anything.
 */
import {
  evaluateMutatingPolicies,
  type CompiledMutatingPolicy,
  type MutatingPolicyContext,
  type MutatingPolicyResult,
} from '@edict/cel-policies';
import type { JsonPatchOperation, PolicyResponse, ResourceRequest } from '@edict/engine';
import { EvaluationDeadlineExceeded, errorMessage, type KubeObject } from '@edict/foundation';
import { MUTATION_LIMITS } from '@edict/native-policies';
import { mutateExistingRequests } from '../background/mutate-existing-requests';
import type { UpdateRequestSpec } from '../background/update-requests';
import { isFiltered } from '../config/is-filtered';
import type { AdmissionConfig } from '../config/types';
import { allow, deny, type AdmissionDecision } from '../decision';
import { wantsReports, type ReportResult } from '../reports/report-results';
import { admissionRequestOf } from '../request/to-resource-request';
import { celPolicyInput, servedPolicies } from '../vpol/policy-review';
import { validatingPolicyReportResults } from '../vpol/report-results';
import type { ValidatingPolicyPath } from '../vpol/select';

/** The `source` Kyverno gives results of MutatingPolicies (reportutils.SourceMutatingPolicy). */
export const MUTATING_POLICY_SOURCE = 'KyvernoMutatingPolicy';

/** A `/mpol/...` path asks for what a `/vpol/...` one does: a failure policy and, fine-grained, names. */
export type MutatingPolicyPath = ValidatingPolicyPath;

/** One MutatingPolicy that applied to the request, with its (last) answer. */
export interface MutatingPolicyEvaluation {
  readonly compiled: CompiledMutatingPolicy;
  readonly result: MutatingPolicyResult;
  readonly response: PolicyResponse;
}

export interface MutatingPolicyAdmissionOptions {
  /** The namespace of the request as an object (`namespaceObject`); null for cluster-scoped requests. */
  namespaceObject?: KubeObject | null;
  /** Ports (CEL libraries), authorizer, exceptions, merge shapes; the deadline is set from `deadline`. */
  context: Omit<MutatingPolicyContext, 'deadline'>;
  /** The review's deadline: once passed, this rejects with EvaluationDeadlineExceeded. */
  deadline?: MutatingPolicyContext['deadline'];
  /** The background controller's username: its requests are not mutated (Kyverno's handler). */
  backgroundUsername?: string;
  now?: () => Date;
  /** Kyverno's --admissionReports: false builds no report results (default true). */
  admissionReports?: boolean;
  /** Bound of the answer's patch, serialized (default MUTATION_LIMITS.maxObjectBytes). */
  maxPatchBytes?: number;
  /** Told of each policy that applied, with the evaluation time in seconds (shared by the chain). */
  onEvaluated?: (evaluation: MutatingPolicyEvaluation, seconds: number) => void;
}

export interface MutatingPolicyOutcome {
  decision: AdmissionDecision;
  filtered?: string;
  dryRun: boolean;
  evaluations: MutatingPolicyEvaluation[];
  /** The object after every mutation (absent when nothing applied or on DELETE). */
  patchedResource?: KubeObject;
  /** PolicyReport results (source KyvernoMutatingPolicy) of an admitted request. */
  reportResults: ReportResult[];
  /**
   * The `cel-mutate` UpdateRequests of the served mutate-existing policies the request fires
   * (mutateExistingRequests), for the caller to store before answering an admitted request.
   */
  updateRequests: UpdateRequestSpec[];
}

/** The `/mpol/...` decision. */
export async function mutatingPolicyAdmission(
  request: ResourceRequest,
  policies: readonly CompiledMutatingPolicy[],
  path: MutatingPolicyPath,
  config: AdmissionConfig,
  options: MutatingPolicyAdmissionOptions,
): Promise<MutatingPolicyOutcome> {
  const dryRun = request.dryRun === true;
  const none = { dryRun, evaluations: [], reportResults: [], updateRequests: [] };
  const username = admissionRequestOf(request)?.userInfo?.username;
  // The background controller's own writes are not mutated; they raise mutate-existing requests only
  // for policies that ask for them (skipBackgroundRequests: false, decided by mutateExistingRequests).
  const fromBackground = options.backgroundUsername !== undefined && username === options.backgroundUsername;
  const filtered = fromBackground ? undefined : isFiltered(request, config);
  if (filtered) return { decision: allow(), filtered, ...none };
  const onPath = servedPolicies(request, policies, path);
  const context: MutatingPolicyContext = { ...options.context, deadline: options.deadline };
  // Mutate-existing policies the path serves (those with targetMatchConstraints included): Kyverno's
  // handler asks for their UpdateRequests on every request it is sent.
  const existing = onPath.filter((compiled) => compiled.mutateExisting);
  const updateRequests =
    existing.length === 0
      ? []
      : await mutateExistingRequests(request, existing, context, {
          namespaceObject: options.namespaceObject ?? null,
          ...(options.backgroundUsername ? { backgroundUsername: options.backgroundUsername } : {}),
        });
  if (fromBackground) return { decision: allow(), ...none, updateRequests };
  const served = onPath.filter((compiled) => !hasSeparateTargets(compiled));
  if (served.length === 0) return { decision: allow(), ...none, updateRequests };

  if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
  const started = performance.now();
  let chain: Awaited<ReturnType<typeof evaluateMutatingPolicies>>;
  try {
    chain = await evaluateMutatingPolicies(served, celPolicyInput(request, options.namespaceObject), context);
  } catch (error) {
    if (error instanceof EvaluationDeadlineExceeded) throw error;
    // An engine fault (not an expression's error, which the engine answers itself): every served
    // policy answers by its failure policy, as an errored one does.
    const failing = served.filter((compiled) => compiled.failurePolicy === 'Fail');
    if (failing.length === 0) return { decision: allow(), ...none, updateRequests };
    const message = errorMessage(error);
    return {
      decision: deny(
        refusal(
          request,
          failing.map((compiled) => `Policy ${compiled.name}: ${message}`),
        ),
      ),
      ...none,
    };
  }
  // The engine answers an expression cut short by the deadline as an error; the review is then
  // answered by the path's failure policy as a timeout, not by what the policies managed so far.
  if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
  const seconds = (performance.now() - started) / 1000;
  const evaluations: MutatingPolicyEvaluation[] = chain.results.map(({ policy, result }) => ({
    compiled: policy,
    result,
    response: result.response,
  }));
  for (const evaluation of evaluations) options.onEvaluated?.(evaluation, seconds / Math.max(1, evaluations.length));

  const errors = evaluations
    .filter(({ compiled, result }) => result.status === 'error' && compiled.failurePolicy === 'Fail')
    .map(({ compiled, result }) => `Policy ${compiled.name}: ${result.message}`);
  const reportable = wantsReports(request, options.admissionReports);
  const timestamp = (options.now ?? (() => new Date()))();
  const reportResults = reportable
    ? evaluations.flatMap((e) => mutatingPolicyReportResults(e, request, timestamp))
    : [];
  const outcome = {
    dryRun,
    evaluations,
    reportResults,
    updateRequests,
    ...(chain.patchedResource ? { patchedResource: chain.patchedResource } : {}),
  };
  if (errors.length > 0) return { ...outcome, decision: deny(refusal(request, errors)) };

  const patch = [...chain.patches] as JsonPatchOperation[];
  if (patch.length === 0) return { ...outcome, decision: allow() };
  const maxBytes = options.maxPatchBytes ?? MUTATION_LIMITS.maxObjectBytes;
  const bytes = new TextEncoder().encode(JSON.stringify(patch)).length;
  if (bytes > maxBytes) {
    // Too large a patch is not applied: the policies' failure policy decides, as for an error.
    const message = `the mutating policies' patch is ${bytes} bytes, more than the ${maxBytes} allowed`;
    const failing = evaluations.filter(
      ({ compiled, result }) => compiled.failurePolicy === 'Fail' && result.patches.length > 0,
    );
    if (failing.length === 0) return { ...outcome, decision: allow() };
    return {
      ...outcome,
      decision: deny(
        refusal(
          request,
          failing.map(({ compiled }) => `Policy ${compiled.name}: ${message}`),
        ),
      ),
    };
  }
  const decision = allow();
  decision.patch = patch;
  return { ...outcome, decision };
}

/** Kyverno's refusal: `Resource: <ns>/<name>, Kind: <kind>, Errors: [<error> <error>...]` (Go's %v of a list). */
function refusal(request: ResourceRequest, errors: readonly string[]): string {
  const admission = admissionRequestOf(request);
  const object = request.resource ?? request.oldResource;
  const namespace = admission?.namespace ?? object?.metadata?.namespace ?? '';
  const name = admission?.name ?? object?.metadata?.name ?? '';
  const kind = admission?.kind?.kind ?? object?.kind ?? '';
  return `Resource: ${namespace}/${name}, Kind: ${kind}, Errors: [${errors.join(' ')}]`;
}

/** A policy whose targetMatchConstraints name other objects: it mutates those in the background, not the request's. */
function hasSeparateTargets(compiled: CompiledMutatingPolicy): boolean {
  const targets = compiled.targetMatchConstraints;
  return targets !== undefined && ((targets.resourceRules ?? []).length > 0 || (targets.expression ?? '') !== '');
}

/** One MutatingPolicy's result rows (Kyverno's ToPolicyReportResult for a MutatingPolicy). */
export function mutatingPolicyReportResults(
  evaluation: Pick<MutatingPolicyEvaluation, 'compiled' | 'response'>,
  request: ResourceRequest,
  now: Date,
): ReportResult[] {
  return validatingPolicyReportResults(
    evaluation.compiled,
    evaluation.response,
    request,
    now,
    MUTATING_POLICY_SOURCE,
  ).map((row) => ({ ...row, type: 'Mutation' as const }));
}
