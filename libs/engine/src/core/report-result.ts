import type { Policy } from '../policy/types';
import type { RuleResponse, RuleStatus } from './types';

export const SCORED_ANNOTATION = 'policies.kyverno.io/scored';
const CATEGORY_ANNOTATION = 'policies.kyverno.io/category';
const SEVERITY_ANNOTATION = 'policies.kyverno.io/severity';
/** The severities a report result may carry; Kyverno drops any other annotation value. */
const SEVERITIES: ReadonlySet<string> = new Set(['critical', 'high', 'medium', 'low', 'info']);

/** False when the policy says `policies.kyverno.io/scored: "false"`: its failures count as warnings. */
export function isScored(policy: Pick<Policy, 'metadata'>): boolean {
  return policy.metadata.annotations?.[SCORED_ANNOTATION] !== 'false';
}

/** The result a policy report shows for a rule status: unscored policies report failures as warnings. */
export function scoredResult(policy: Pick<Policy, 'metadata'>, status: RuleStatus): RuleStatus {
  return status === 'fail' && !isScored(policy) ? 'warn' : status;
}

/** The object a report result is about (a corev1.ObjectReference; empty fields are left out). */
export interface ReportedResource {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
}

/** A wgpolicyk8s.io/v1alpha2 PolicyReportResult, as Kyverno writes it. */
export interface PolicyReportResult {
  source: string;
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  policy: string;
  rule: string;
  result: RuleStatus;
  scored: boolean;
  message?: string;
  category?: string;
  severity?: string;
  /** Whole seconds, as Kyverno stamps results. */
  timestamp: { seconds: number; nanos: number };
  properties?: Record<string, string>;
  /** Set by the CLI; the controllers' reports name their resource once, in the report's scope. */
  resources?: ReportedResource[];
}

/**
 * A policy with the key reports name it by (a CompiledPolicy is one). Only its metadata is read,
 * so Kyverno's CEL policies report through the same builder.
 */
export interface ReportedPolicy {
  readonly key: string;
  readonly policy: Pick<Policy, 'metadata'>;
}

/**
 * One rule response as a policy report result, the one way Kyverno's controllers and CLI both build
 * it: category and severity from the policy's annotations, `scored` and an unscored failure reported
 * as a warning, the rule's properties plus the exceptions that skipped it (by name), and the resource
 * when given.
 */
export function policyReportResult(
  { key, policy }: ReportedPolicy,
  rule: RuleResponse,
  now: Date,
  resource?: ReportedResource,
): PolicyReportResult {
  const annotations = policy.metadata.annotations ?? {};
  const result: PolicyReportResult = {
    source: 'kyverno',
    policy: key,
    rule: rule.name,
    result: scoredResult(policy, rule.status),
    scored: isScored(policy),
    message: rule.message,
    timestamp: { seconds: Math.floor(now.getTime() / 1000), nanos: 0 },
  };
  const category = annotations[CATEGORY_ANNOTATION];
  const severity = annotations[SEVERITY_ANNOTATION];
  if (category) result.category = category;
  if (severity && SEVERITIES.has(severity)) result.severity = severity;
  const properties = { ...rule.properties };
  if (rule.exceptions?.length) properties.exceptions = rule.exceptions.map(exceptionName).join(',');
  if (Object.keys(properties).length > 0) result.properties = properties;
  if (resource) result.resources = [withoutEmptyFields(resource)];
  return result;
}

/** `namespace/name` or `name` → `name`. */
function exceptionName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

function withoutEmptyFields(resource: ReportedResource): ReportedResource {
  return Object.fromEntries(Object.entries(resource).filter(([, value]) => value !== undefined && value !== ''));
}
