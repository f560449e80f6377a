import { evaluateValidatingPolicy, type CelPolicyContext, type CompiledValidatingPolicy } from '@edict/cel-policies';
import type { PolicyResponse, ResourceRequest } from '@edict/engine';
import { EvaluationDeadlineExceeded, type KubeObject } from '@edict/foundation';
import { isFiltered } from '../config/is-filtered';
import type { AdmissionConfig } from '../config/types';
import { allow, type AdmissionDecision } from '../decision';
import type { ReportResult } from '../reports/report-results';
import { celPolicyInput, crashedValidatingPolicy, policyReviewOutcome, servedPolicies } from './policy-review';
import type { ValidatingPolicyPath } from './select';

/** One ValidatingPolicy's answer for the request (only policies that applied have one). */
export interface ValidatingPolicyEvaluation {
  readonly compiled: CompiledValidatingPolicy;
  readonly response: PolicyResponse;
}

export interface ValidatingPolicyAdmissionOptions {
  /** The namespace of the request as an object (`namespaceObject`); null for cluster-scoped requests. */
  namespaceObject?: KubeObject | null;
  /** Ports, authorizer and exceptions handed to the engine; the deadline is set from `deadline`. */
  context: Omit<CelPolicyContext, 'deadline'>;
  /** The review's deadline: once passed, this rejects with EvaluationDeadlineExceeded (answered by failure policy). */
  deadline?: CelPolicyContext['deadline'];
  /** Clock for report timestamps. */
  now?: () => Date;
  /** Kyverno's --admissionReports: false builds no report results (default true). */
  admissionReports?: boolean;
  /** Told of each policy that applied, with its evaluation time in seconds (metrics). */
  onEvaluated?: (evaluation: ValidatingPolicyEvaluation, seconds: number) => void;
}

export interface ValidatingPolicyOutcome {
  decision: AdmissionDecision;
  /** Set when the request skipped policies (resource filters, exclusions): why. */
  filtered?: string;
  dryRun: boolean;
  /** True when a Deny validation (or an error under failurePolicy Fail) refused the request. */
  blocked: boolean;
  /** Every policy that applied, in evaluation order (for events and metrics). */
  evaluations: ValidatingPolicyEvaluation[];
  /**
   * PolicyReport results of the admitted request (none when blocked, for dry runs, DELETE and
   * objects without uid, and for policies labelled to be left out of reports).
   */
  reportResults: ReportResult[];
}

/**
 * Kyverno's ValidatingPolicy webhook decision (pkg/webhooks/resource/vpol): every ValidatingPolicy
 * the path serves is evaluated before answering, whatever its actions. A policy with the Deny
 * action refuses the request for each failed validation (`Policy <name> failed: <message>`) and,
 * under failurePolicy Fail (or when an exception could not be decided), for each error
 * (`Policy <name> error: <message>`), the messages joined with `; ` as Go's multierr does; the
 * Warn action turns the same outcomes into admission warnings (worded here as Kyverno's handler
 * words them, not the engine's bare messages); Audit only reports. Audit annotations are passed on.
 */
export async function validatingPolicyAdmission(
  request: ResourceRequest,
  policies: readonly CompiledValidatingPolicy[],
  path: ValidatingPolicyPath,
  config: AdmissionConfig,
  options: ValidatingPolicyAdmissionOptions,
): Promise<ValidatingPolicyOutcome> {
  const dryRun = request.dryRun === true;
  const none = { dryRun, blocked: false, evaluations: [], reportResults: [] };
  const filtered = isFiltered(request, config);
  if (filtered) return { decision: allow(), filtered, ...none };
  const served = servedPolicies(request, policies, path);
  if (served.length === 0) return { decision: allow(), ...none };

  const input = celPolicyInput(request, options.namespaceObject);
  const context: CelPolicyContext = { ...options.context, deadline: options.deadline };
  const evaluations: ValidatingPolicyEvaluation[] = [];
  for (const compiled of served) {
    // Between policies as the engine does between rules: past the review's deadline nothing more runs.
    if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
    let response: PolicyResponse | undefined;
    const started = performance.now();
    try {
      response = await evaluateValidatingPolicy(compiled, input, context);
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      response = crashedValidatingPolicy(compiled, request, error);
    }
    if (!response || response.rules.length === 0) continue;
    const evaluation = { compiled, response };
    evaluations.push(evaluation);
    options.onEvaluated?.(evaluation, (performance.now() - started) / 1000);
  }

  return { ...policyReviewOutcome(request, evaluations, options), dryRun, evaluations };
}
