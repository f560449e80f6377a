/**
 * Builds Kyverno's AdmissionReport / ClusterAdmissionReport for one admission request, and merges
 * two reports about the same request. Pure: the writer and the reports controller share it.
 *
 * Shape (Kyverno's NewAdmissionReport / BuildAdmissionReport): named after the request uid, in the
 * resource's namespace (cluster-scoped resources get a ClusterAdmissionReport); labels
 * managed-by, resource uid, gvr and hash, one `cpol.kyverno.io/<name>` / `pol.kyverno.io/<name>`
 * label per policy holding its resourceVersion; `spec.owner` names the resource; `spec.results`
 * and `spec.summary`. Only for requests other than CREATE is the resource also an ownerReference
 * (on CREATE it does not exist yet, and a dangling owner would let the garbage collector take the
 * report).
 */
import {
  ADMISSION_REPORT_KIND,
  ANNOTATION_RESOURCE_NAME,
  ANNOTATION_RESOURCE_NAMESPACE,
  CLUSTER_ADMISSION_REPORT_KIND,
  gvrLabel,
  LABEL_MANAGED_BY,
  LABEL_RESOURCE_GVR,
  LABEL_RESOURCE_HASH,
  LABEL_RESOURCE_UID,
  MANAGED_BY_KYVERNO,
  policyLabel,
  REPORTS_API_VERSION,
  type GroupVersionResource,
} from './labels';
import type { AdmissionReportObject, PolicyReportResult, PolicyReportSummary, ReportOwner } from './types';

/** A policy whose results are in the report. */
export interface ReportPolicy {
  kind: 'ClusterPolicy' | 'Policy';
  name: string;
  namespace?: string;
  resourceVersion?: string;
}

/** Everything the report is built from: one admission request's results. */
export interface AdmissionReportInput {
  /** The AdmissionRequest uid: the report's name, which makes writes idempotent. */
  requestUid: string;
  operation: string;
  /** The request's `resource` (group/version/resource). */
  gvr: GroupVersionResource;
  resource: { apiVersion: string; kind: string; name: string; namespace?: string; uid: string };
  /** Kyverno's resource hash of the admitted object (see resourceHash). */
  resourceHash: string;
  policies: ReportPolicy[];
  results: PolicyReportResult[];
}

export function buildAdmissionReport(input: AdmissionReportInput): AdmissionReportObject {
  const { resource } = input;
  const owner: ReportOwner = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    uid: resource.uid,
  };
  const labels: Record<string, string> = {
    [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO,
    [LABEL_RESOURCE_UID]: resource.uid,
    [LABEL_RESOURCE_GVR]: gvrLabel(input.gvr),
    [LABEL_RESOURCE_HASH]: input.resourceHash,
  };
  for (const policy of input.policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const namespaced = resource.namespace !== undefined && resource.namespace !== '';
  const report: AdmissionReportObject = {
    apiVersion: REPORTS_API_VERSION,
    kind: namespaced ? ADMISSION_REPORT_KIND : CLUSTER_ADMISSION_REPORT_KIND,
    metadata: {
      name: input.requestUid,
      ...(namespaced ? { namespace: resource.namespace } : {}),
      labels,
      annotations: {
        [ANNOTATION_RESOURCE_NAMESPACE]: resource.namespace ?? '',
        [ANNOTATION_RESOURCE_NAME]: resource.name,
      },
    },
    spec: { owner, summary: summarize(input.results), results: sortResults(input.results) },
  };
  if (input.operation !== 'CREATE') report.metadata.ownerReferences = [{ ...owner }];
  return report;
}

/** Counts per result, as PolicyReportSummary. */
export function summarize(results: readonly PolicyReportResult[]): PolicyReportSummary {
  const summary: PolicyReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const result of results) summary[result.result] += 1;
  return summary;
}

/**
 * The union of two reports about the same request (the fail and ignore webhooks, validate and
 * mutate, or a retried write): a result for the same policy and rule is taken from `incoming`;
 * labels are merged; the existing object's metadata (resourceVersion, uid) is kept so the merge
 * can be written back with optimistic concurrency.
 */
export function mergeAdmissionReports(
  existing: AdmissionReportObject,
  incoming: AdmissionReportObject,
): AdmissionReportObject {
  const byRule = new Map<string, PolicyReportResult>();
  for (const result of existing.spec?.results ?? []) byRule.set(resultKey(result), result);
  for (const result of incoming.spec.results) byRule.set(resultKey(result), result);
  const results = sortResults([...byRule.values()]);
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...(existing.metadata.labels ?? {}), ...incoming.metadata.labels },
      annotations: { ...(existing.metadata.annotations ?? {}), ...(incoming.metadata.annotations ?? {}) },
      ...(incoming.metadata.ownerReferences || existing.metadata.ownerReferences
        ? { ownerReferences: incoming.metadata.ownerReferences ?? existing.metadata.ownerReferences }
        : {}),
    },
    spec: { owner: incoming.spec.owner, summary: summarize(results), results },
  };
}

/** True when writing `merged` over `existing` would change nothing Kyverno reads. */
export function sameReportContent(existing: AdmissionReportObject, merged: AdmissionReportObject): boolean {
  return (
    JSON.stringify(existing.spec?.results ?? []) === JSON.stringify(merged.spec.results) &&
    JSON.stringify(sortedEntries(existing.metadata.labels)) === JSON.stringify(sortedEntries(merged.metadata.labels))
  );
}

function resultKey(result: PolicyReportResult): string {
  return `${result.policy}\u0000${result.rule}`;
}

/** Policy then rule order, so the same results always serialize the same way. */
function sortResults(results: PolicyReportResult[]): PolicyReportResult[] {
  return [...results].sort((a, b) => {
    const left = resultKey(a);
    const right = resultKey(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

function sortedEntries(record: Record<string, string> | undefined): [string, string][] {
  return Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
