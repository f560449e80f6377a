/**
 * What the ValidatingPolicy and ImageValidatingPolicy webhooks share around their engines (Kyverno's
 * vpol and ivpol handlers answer alike): the policies a path serves for the request's namespace,
 * the engine's input, and the decision and report results built from the policies that applied.
 */
import type { CelPolicyInput, CompiledValidatingPolicy } from '@edict/cel-policies';
import type { PolicyResponse, ResourceRequest } from '@edict/engine';
import { errorMessage, type KubeObject } from '@edict/foundation';
import { allow, deny, type AdmissionDecision } from '../decision';
import { admissionRequestOf } from '../request/to-resource-request';
import { wantsReports, type ReportResult } from '../reports/report-results';
import { VALIDATING_POLICY_SOURCE, validatingPolicyReportResults } from './report-results';
import { validatingPoliciesForPath, type PathPolicy, type ValidatingPolicyPath } from './select';

/** The policies `path` serves for the request (a namespaced one only in its own namespace). */
export function servedPolicies<T extends PathPolicy>(
  request: ResourceRequest,
  policies: readonly T[],
  path: ValidatingPolicyPath,
): T[] {
  const namespace =
    admissionRequestOf(request)?.namespace ?? (request.resource ?? request.oldResource)?.metadata?.namespace ?? '';
  return validatingPoliciesForPath(policies, path, namespace);
}

/** The engine's input: the request, its resource (group/version/plural) and namespace object. */
export function celPolicyInput(request: ResourceRequest, namespaceObject?: KubeObject | null): CelPolicyInput {
  const gvr = admissionRequestOf(request)?.resource;
  return {
    request,
    resource: { group: gvr?.group ?? '', version: gvr?.version ?? '', resource: gvr?.resource ?? '' },
    namespaceObject: namespaceObject ?? null,
  };
}

/** One policy that applied, with its response. */
export interface AppliedPolicy<T> {
  readonly compiled: T;
  readonly response: PolicyResponse;
}

/**
 * The webhook's answer from the policies that applied: denied with every Deny failure (and error
 * under failurePolicy Fail), warned with every Warn one, audit annotations passed on, and the
 * PolicyReport results of an admitted request (under `source`).
 */
export function policyReviewOutcome<T extends Parameters<typeof validatingPolicyReportResults>[0] & AppliedCompiled>(
  request: ResourceRequest,
  evaluations: ReadonlyArray<AppliedPolicy<T>>,
  options: { now?: () => Date; admissionReports?: boolean },
  source: string = VALIDATING_POLICY_SOURCE,
): { decision: AdmissionDecision; blocked: boolean; reportResults: ReportResult[] } {
  const { errors, warnings, auditAnnotations } = admissionVerdict(evaluations);
  const blocked = errors.length > 0;
  const decision: AdmissionDecision = blocked ? deny(errors.join('; '), warnings) : allow(warnings);
  if (Object.keys(auditAnnotations).length > 0) decision.auditAnnotations = auditAnnotations;
  const reportable = !blocked && wantsReports(request, options.admissionReports);
  const timestamp = (options.now ?? (() => new Date()))();
  const reportResults = reportable
    ? evaluations.flatMap(({ compiled, response }) =>
        validatingPolicyReportResults(compiled, response, request, timestamp, source),
      )
    : [];
  return { decision, blocked, reportResults };
}

type AppliedCompiled = Pick<CompiledValidatingPolicy, 'name' | 'validationActions' | 'failurePolicy'>;

/** The denial messages, warnings and audit annotations of the evaluated policies, in Kyverno's words. */
export function admissionVerdict(
  evaluations: ReadonlyArray<{
    readonly compiled: Pick<CompiledValidatingPolicy, 'name' | 'validationActions' | 'failurePolicy'>;
    readonly response: PolicyResponse;
  }>,
): {
  errors: string[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
} {
  const errors: string[] = [];
  const warnings: string[] = [];
  const auditAnnotations: Record<string, string> = {};
  for (const { compiled, response } of evaluations) {
    const actions = response.validationActions ?? compiled.validationActions;
    const failurePolicy = response.failurePolicy ?? compiled.failurePolicy;
    for (const rule of response.rules) {
      if (rule.status !== 'fail' && rule.status !== 'error') continue;
      const text = `Policy ${compiled.name} ${rule.status === 'fail' ? 'failed' : 'error'}: ${rule.message}`;
      // An error denies only under failurePolicy Fail, except an exception that could not be
      // decided: skipping the policy on it would open what the exception was meant to keep narrow.
      const denies = rule.status === 'fail' || failurePolicy === 'Fail' || (rule.exceptions?.length ?? 0) > 0;
      if (actions.includes('Deny') && denies) errors.push(text);
      if (actions.includes('Warn')) warnings.push(text);
    }
    Object.assign(auditAnnotations, response.auditAnnotations ?? {});
  }
  return { errors, warnings, auditAnnotations };
}

/** A policy whose evaluation threw: one `error` result, which then follows its failure policy. */
export function crashedValidatingPolicy(
  compiled: Pick<CompiledValidatingPolicy, 'name' | 'namespace' | 'validationActions' | 'failurePolicy'> & {
    readonly kind: PolicyResponse['policy']['kind'];
  },
  request: ResourceRequest,
  error: unknown,
): PolicyResponse {
  const object = request.resource ?? request.oldResource;
  return {
    policy: {
      name: compiled.name,
      kind: compiled.kind,
      ...(compiled.namespace ? { namespace: compiled.namespace } : {}),
    },
    resource: {
      apiVersion: object?.apiVersion ?? '',
      kind: object?.kind ?? '',
      name: object?.metadata?.name ?? '',
      ...(object?.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    },
    rules: [
      {
        name: compiled.name,
        type: 'Validation',
        status: 'error',
        message: `policy evaluation failed: ${errorMessage(error)}`,
      },
    ],
    validationFailureAction: compiled.validationActions.includes('Deny') ? 'Enforce' : 'Audit',
    validationActions: compiled.validationActions,
    failurePolicy: compiled.failurePolicy,
  };
}
