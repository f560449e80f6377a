/**
 * From the admission library's ReportResults (one admission request) to the report input:
 * Kyverno's PolicyReportResult fields (`scored` from the policy's `policies.kyverno.io/scored`
 * annotation, timestamps in whole seconds as Kyverno writes them) and the policies to label.
 */
import type { ReportResult } from '@edict/admission';
import type { AdmissionReportInput } from './admission-report';
import type { ReportPolicy } from './ephemeral-report';
import type { GroupVersionResource } from './labels';
import { resourceHash } from './resource-hash';
import type { PolicyReportResult } from './types';

/** What the report needs to know about a policy, looked up by its key (`name` or `ns/name`). */
export interface ReportPolicyInfo extends ReportPolicy {
  /** False when the policy says `policies.kyverno.io/scored: "false"`. */
  scored: boolean;
}

export interface ReportRequestFacts {
  uid: string;
  operation: string;
  resource: GroupVersionResource;
}

/**
 * The report input for one request, or undefined when there is nothing to report (no results, or
 * the resource has no uid: Kyverno reports only on objects it can name by uid).
 */
export function admissionReportInput(
  request: ReportRequestFacts,
  object: Record<string, unknown> | undefined,
  results: readonly ReportResult[],
  policyInfo: (key: string) => ReportPolicyInfo | undefined,
): AdmissionReportInput | undefined {
  const first = results[0];
  if (!first || !first.resource.uid) return undefined;
  const policies = new Map<string, ReportPolicyInfo>();
  const converted: PolicyReportResult[] = [];
  for (const result of results) {
    const info = policyInfo(result.policy) ?? fallbackInfo(result.policy);
    policies.set(result.policy, info);
    converted.push(toPolicyReportResult(result, info.scored));
  }
  const { resource } = first;
  return {
    requestUid: request.uid,
    operation: request.operation,
    gvr: request.resource,
    resource: {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.name,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
      uid: resource.uid!,
    },
    resourceHash: resourceHash(object),
    policies: [...policies.values()],
    results: converted,
  };
}

export function toPolicyReportResult(result: ReportResult, scored = true): PolicyReportResult {
  const out: PolicyReportResult = {
    source: result.source,
    policy: result.policy,
    rule: result.rule,
    result: result.result as PolicyReportResult['result'],
    scored,
    message: result.message,
    timestamp: { seconds: result.timestamp.seconds, nanos: 0 },
  };
  if (result.category) out.category = result.category;
  if (result.severity) out.severity = result.severity;
  if (result.properties && Object.keys(result.properties).length > 0) out.properties = { ...result.properties };
  return out;
}

/** A policy no longer in the cache: named from its key, without a resourceVersion. */
function fallbackInfo(key: string): ReportPolicyInfo {
  const slash = key.indexOf('/');
  return slash < 0
    ? { kind: 'ClusterPolicy', name: key, scored: true }
    : { kind: 'Policy', namespace: key.slice(0, slash), name: key.slice(slash + 1), scored: true };
}
