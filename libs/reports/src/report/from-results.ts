/**
 * From the admission library's ReportResults (one admission request) to the report input: their
 * PolicyReportResult rows and the policies to label.
 */
import { IMAGE_VALIDATING_POLICY_SOURCE, VALIDATING_POLICY_SOURCE, type ReportResult } from '@edict/admission';
import type { AdmissionReportInput } from './admission-report';
import type { ReportPolicy } from './ephemeral-report';
import type { GroupVersionResource } from './labels';
import type { PolicyReportResult } from './types';

export interface ReportRequestFacts {
  uid: string;
  operation: string;
  resource: GroupVersionResource;
}

/**
 * The report input for one request, or undefined when there is nothing to report (no results, or
 * the resource has no uid: Kyverno reports only on objects it can name by uid). `resourceHash` is
 * the reviewed object's (`resourceHash(object)`).
 */
export function admissionReportInput(
  request: ReportRequestFacts,
  resourceHash: string,
  results: readonly ReportResult[],
  /** The policy a result names, by its key and the result's `source` (ValidatingPolicies have their own names). */
  policyInfo: (key: string, source: string) => ReportPolicy | undefined,
): AdmissionReportInput | undefined {
  const first = results[0];
  if (!first) return undefined;
  const policies = new Map<string, ReportPolicy>();
  const converted: PolicyReportResult[] = [];
  for (const result of results) {
    const info = policyInfo(result.policy, result.source) ?? fallbackInfo(result.policy, result.source);
    policies.set(`${result.source}/${result.policy}`, info);
    converted.push(toPolicyReportResult(result));
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
      // Empty at a mutating webhook's CREATE (the object has no uid yet): the reports controller adopts it.
      uid: resource.uid ?? '',
    },
    resourceHash,
    policies: [...policies.values()],
    results: converted,
  };
}

/** The row alone, without what batching needed (the resource is the report's scope). */
export function toPolicyReportResult(result: ReportResult): PolicyReportResult {
  const { resource: _resource, type: _type, ...row } = result;
  return row;
}

/** A policy no longer in the cache: named from its key, without a resourceVersion. */
function fallbackInfo(key: string, source: string): ReportPolicy {
  const slash = key.indexOf('/');
  const [cluster, namespaced] =
    source === VALIDATING_POLICY_SOURCE
      ? (['ValidatingPolicy', 'NamespacedValidatingPolicy'] as const)
      : source === IMAGE_VALIDATING_POLICY_SOURCE
        ? (['ImageValidatingPolicy', 'NamespacedImageValidatingPolicy'] as const)
        : (['ClusterPolicy', 'Policy'] as const);
  return slash < 0
    ? { kind: cluster, name: key }
    : { kind: namespaced, namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
