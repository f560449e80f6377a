import {
  scoredResult,
  type CompiledPolicy,
  type PolicyResponse,
  type ResourceRequest,
  type RuleStatus,
} from '@edict/engine';

/** The object a result is about (Kyverno's report `scope` / result `resources[]`). */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

/**
 * One rule result for the admission reports queue, shaped after a PolicyReport result
 * (wgpolicyk8s.io): the app batches these into admission EphemeralReport / ClusterEphemeralReport objects.
 */
export interface ReportResult {
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  policy: string;
  rule: string;
  /** The report status (unscored policies report `fail` as `warn`). */
  result: RuleStatus;
  message: string;
  resource: ResourceRef;
  /** When the admission request was evaluated (metav1.Timestamp form). */
  timestamp: { seconds: number; nanos: number };
  source: 'kyverno';
  category?: string;
  severity?: string;
  properties?: Record<string, string>;
  /** Validation or mutation, so the app can build the right report. */
  type: 'Validation' | 'Mutation';
}

/** Results of one policy response, stamped with the evaluation time. */
export function reportResults(
  compiled: CompiledPolicy,
  response: PolicyResponse,
  request: ResourceRequest,
  now: Date,
): ReportResult[] {
  const object = request.resource ?? request.oldResource;
  const resource: ResourceRef = { ...response.resource };
  if (resource.namespace === undefined || resource.namespace === '') delete resource.namespace;
  const uid = object?.metadata?.uid;
  if (typeof uid === 'string' && uid !== '') resource.uid = uid;
  const annotations = compiled.policy.metadata.annotations ?? {};
  const millis = now.getTime();
  const timestamp = { seconds: Math.floor(millis / 1000), nanos: (millis % 1000) * 1_000_000 };
  const results: ReportResult[] = [];
  for (const rule of response.rules) {
    if (rule.type !== 'Validation' && rule.type !== 'Mutation') continue;
    const result: ReportResult = {
      policy: compiled.key,
      rule: rule.name,
      result: scoredResult(compiled.policy, rule.status),
      message: rule.message,
      resource,
      timestamp,
      source: 'kyverno',
      type: rule.type,
    };
    const category = annotations['policies.kyverno.io/category'];
    const severity = annotations['policies.kyverno.io/severity'];
    if (category) result.category = category;
    if (severity) result.severity = severity;
    const properties = { ...rule.properties };
    // Kyverno names the exceptions that skipped the rule (by name, comma-separated).
    if (rule.exceptions?.length) properties.exceptions = rule.exceptions.map(exceptionName).join(',');
    if (Object.keys(properties).length > 0) result.properties = properties;
    results.push(result);
  }
  return results;
}

/** `namespace/name` or `name` → `name`. */
function exceptionName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * Kyverno writes admission reports only for real, non-DELETE requests on objects that have a uid
 * (NeedsReports); dry runs leave no trace.
 */
export function wantsReports(request: ResourceRequest): boolean {
  if (request.dryRun || request.operation === 'DELETE') return false;
  const uid = request.resource?.metadata?.uid;
  return typeof uid === 'string' && uid !== '';
}
