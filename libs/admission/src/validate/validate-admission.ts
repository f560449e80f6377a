import { failurePolicyOf, type CompiledPolicy, type PolicyResponse, type ResourceRequest } from '@edict/engine';
import { type EvaluationDeadline } from '@edict/foundation';
import { updateRequestsFor, type BackgroundOptions, type UpdateRequestSpec } from '../background/update-requests';
import { isFiltered } from '../config/is-filtered';
import type { AdmissionConfig } from '../config/types';
import { allow, deny, type AdmissionDecision, type FailurePolicy } from '../decision';
import { blockedMessage, warningMessages } from '../messages/messages';
import { emitsWarning, hasValidate, isEnforcing, policiesForPath, type AdmissionEngine } from '../policies';
import { reportResults, wantsReports, type ReportResult } from '../reports/report-results';
import { evaluate } from './evaluate';

export interface AdmissionOptions extends BackgroundOptions {
  /** The webhook path's failure policy (`/validate/fail` → Fail); unset serves every policy. */
  failurePolicy?: FailurePolicy;
  /** Clock for report timestamps. */
  now?: () => Date;
  /**
   * The review's deadline, for the evaluations before the answer (not the audits after it): once
   * passed, the engine stops and this rejects with EvaluationDeadlineExceeded.
   */
  deadline?: EvaluationDeadline;
  /** Handed to the audits after the answer (e.g. turns without an end, FairTurns.turnsOnly). */
  auditDeadline?: EvaluationDeadline;
  /** Kyverno's --admissionReports: false builds no report results (default true). */
  admissionReports?: boolean;
}

/** Work Kyverno does after answering: report results and the audits' responses. */
export interface AfterAdmission {
  reportResults: ReportResult[];
  /** The audit-only policies' responses (for events). */
  auditResponses: PolicyResponse[];
  /** The reviewed object's resource hash, when the thread that ran the audits computed it for the report. */
  resourceHash?: string;
}

export interface ValidationOutcome {
  decision: AdmissionDecision;
  /** Set when the request skipped policies (resource filters, exclusions): why. */
  filtered?: string;
  dryRun: boolean;
  /** Responses of the policies evaluated before answering (Enforce and emitWarning policies). */
  responses: PolicyResponse[];
  /**
   * For an admitted request, the generate / mutate-existing rules it triggers, one UpdateRequest
   * spec each (none on dry runs). Decided before the answer, unlike Kyverno (which decides them
   * after it): the caller writes them before answering, so that no admitted trigger loses its
   * request to a dropped job or a killed process. Only matching runs here, without context loads
   * beyond what the rules' preconditions read.
   */
  updateRequests?: UpdateRequestSpec[];
  /**
   * For an admitted request: evaluates the audit-only policies. Call it after the response is sent,
   * as Kyverno does, so audits never add latency. Empty report results for dry runs, DELETE and
   * objects without uid.
   */
  after?: () => Promise<AfterAdmission>;
}

/**
 * Kyverno's validating webhook decision. Enforce policies (any rule or override saying Enforce) are
 * evaluated before answering, with audit-only policies that set `emitWarning`. The request is
 * denied when a failing rule's failure action is Enforce, or when a rule errored and the served
 * failure policy is Fail; the message is Kyverno's `resource Kind/ns/name was blocked...` text over
 * the Enforce policies. Otherwise it is admitted, with a warning per failed/errored/warned rule of
 * those responses.
 */
export async function validateAdmission(
  request: ResourceRequest,
  policies: readonly CompiledPolicy[],
  engine: AdmissionEngine,
  config: AdmissionConfig,
  options: AdmissionOptions = {},
): Promise<ValidationOutcome> {
  const dryRun = request.dryRun === true;
  const filtered = isFiltered(request, config);
  if (filtered) return { decision: allow(), filtered, dryRun, responses: [] };

  const validating = policiesForPath(policies, options.failurePolicy, hasValidate);
  const enforcing = validating.filter(isEnforcing);
  const auditWarn = validating.filter((compiled) => !isEnforcing(compiled) && emitsWarning(compiled));
  const enforceResponses = await evaluate(engine, enforcing, request, 'validate', options.deadline);
  const warnResponses = await evaluate(engine, auditWarn, request, 'validate', options.deadline);

  // Kyverno's failure policy for errors: Fail as soon as one served Enforce policy fails closed.
  const failClosed = enforcing.some((compiled) => failurePolicyOf(compiled.policy) === 'Fail');
  const responses = [...enforceResponses, ...warnResponses].map((entry) => entry.response);
  if (enforceResponses.some(({ response }) => blocks(response, failClosed))) {
    const message = blockedMessage(enforceResponses.map((entry) => entry.response));
    return { decision: deny(message), dryRun, responses };
  }

  const decision = allow(warningMessages(responses));
  const updateRequests = dryRun ? [] : await updateRequestsFor(request, policies, engine, options);
  const now = options.now ?? (() => new Date());
  const auditOnly = validating.filter((compiled) => !isEnforcing(compiled) && !emitsWarning(compiled));
  const after = async (): Promise<AfterAdmission> => {
    const timestamp = now();
    const audits = await evaluate(engine, auditOnly, request, 'validate', options.auditDeadline);
    const reportable = wantsReports(request, options.admissionReports);
    const results = reportable
      ? [...enforceResponses, ...warnResponses, ...audits].flatMap(({ compiled, response }) =>
          reportResults(compiled, response, request, timestamp),
        )
      : [];
    return { reportResults: results, auditResponses: audits.map((entry) => entry.response) };
  };
  return { decision, dryRun, responses, updateRequests, after };
}

/** Kyverno's BlockRequest for one policy response. */
export function blocks(response: PolicyResponse, failClosed: boolean): boolean {
  const enforcedFailure = response.rules.some(
    (rule) => rule.status === 'fail' && (rule.failureAction ?? response.validationFailureAction) === 'Enforce',
  );
  if (enforcedFailure) return true;
  return failClosed && response.rules.some((rule) => rule.status === 'error');
}
