import {
  policyReportResult,
  type CompiledPolicy,
  type PolicyReportResult,
  type PolicyResponse,
  type ResourceRequest,
} from '@edict/engine';

/** The object a result is about (Kyverno's report `scope`). */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

/**
 * One rule's PolicyReport result with what the app needs to batch it into admission EphemeralReport /
 * ClusterEphemeralReport objects: the resource it is about and the rule type.
 */
export interface ReportResult extends PolicyReportResult {
  resource: ResourceRef;
  /** The rule type (validate, mutate and image verification at admission, generate and mutate-existing in the background). */
  type: 'Validation' | 'Mutation' | 'Generation' | 'ImageVerify';
}

/** A policy carrying this label (any value) is left out of reports (Kyverno's LabelExcludeReporting). */
export const EXCLUDE_REPORTING_LABEL = 'reports.kyverno.io/disabled';

/**
 * Kyverno's IsPolicyReportable, for every policy kind: false when the policy is labelled
 * `reports.kyverno.io/disabled`. Such a policy is still enforced and still emits Events; it only
 * writes no ephemeral report and no PolicyReport result.
 */
export function isPolicyReportable(policy: { readonly metadata?: { readonly labels?: unknown } } | undefined): boolean {
  const labels = policy?.metadata?.labels;
  return !(
    typeof labels === 'object' &&
    labels !== null &&
    Object.prototype.hasOwnProperty.call(labels, EXCLUDE_REPORTING_LABEL)
  );
}

/** Results of one policy response, stamped with the evaluation time (none for a policy left out of reports). */
export function reportResults(
  compiled: CompiledPolicy,
  response: PolicyResponse,
  request: ResourceRequest,
  now: Date,
): ReportResult[] {
  if (!isPolicyReportable(compiled.policy)) return [];
  const object = request.resource ?? request.oldResource;
  // Built key by key: a spread copy that then loses or gains keys takes V8's slow paths.
  const { apiVersion, kind, name, namespace } = response.resource;
  const resource: ResourceRef = { apiVersion, kind, name };
  if (namespace !== undefined && namespace !== '') resource.namespace = namespace;
  const uid = object?.metadata?.uid;
  if (typeof uid === 'string' && uid !== '') resource.uid = uid;
  const process = classicProcessOf(compiled.policy.spec);
  const results: ReportResult[] = [];
  for (const rule of response.rules) {
    if (
      rule.type !== 'Validation' &&
      rule.type !== 'Mutation' &&
      rule.type !== 'Generation' &&
      rule.type !== 'ImageVerify'
    )
      continue;
    // The row is built fresh for us: completed in place rather than copied (19 rows a Pod review).
    const result = policyReportResult(compiled, rule, now) as ReportResult;
    // policyReportResult's properties are its own copy: completed in place too.
    if (result.properties) result.properties.process = process;
    else result.properties = { process };
    result.resource = resource;
    result.type = rule.type;
    results.push(result);
  }
  return results;
}

/**
 * Kyverno's `process` property of a Policy's or ClusterPolicy's results, whichever process wrote
 * them: `background scan` when the policy runs in background scans (`spec.background`, true unless
 * false), else `admission review` when it runs at admission (`spec.admission`, likewise), else empty.
 */
export function classicProcessOf(spec: { readonly background?: boolean; readonly admission?: boolean }): string {
  if (spec.background !== false) return 'background scan';
  return spec.admission !== false ? 'admission review' : '';
}

/**
 * Kyverno writes admission reports only when they are on (--admissionReports, `enabled` unless
 * false) and only for real, non-DELETE requests on objects that have a uid (NeedsReports); dry
 * runs leave no trace.
 */
export function wantsReports(request: ResourceRequest, enabled: boolean | undefined): boolean {
  if (!wantsMutationReports(request, enabled)) return false;
  const uid = request.resource?.metadata?.uid;
  return typeof uid === 'string' && uid !== '';
}

/**
 * Kyverno's mutation handler writes its report whether or not the object has a uid yet (a CREATE
 * reaches the mutating webhook before the API server gives it one): the reports controller adopts
 * such a report once the object exists. Not for dry runs, DELETE, or with admission reports off.
 */
export function wantsMutationReports(request: ResourceRequest, enabled: boolean | undefined): boolean {
  return enabled !== false && !request.dryRun && request.operation !== 'DELETE';
}
