/**
 * Builds Kyverno's admission EphemeralReport / ClusterEphemeralReport for one admission request,
 * and merges two reports about the same request. Pure: the writer and the reports controller share it.
 *
 * Shape (Kyverno's admission report): named after the request uid, in the resource's namespace
 * (cluster-scoped resources get a ClusterEphemeralReport); labels managed-by, source `admission`,
 * the resource's uid, hash, gvr and group/version/kind, one `cpol.kyverno.io/<name>` /
 * `pol.kyverno.io/<name>` label per policy holding its resourceVersion; `spec.owner` names the
 * resource; `spec.results` and `spec.summary`. Only for requests other than CREATE is the resource also an ownerReference
 * (on CREATE it does not exist yet, and a dangling owner would let the garbage collector take the
 * report).
 */
import {
  ANNOTATION_RESOURCE_NAME,
  ANNOTATION_RESOURCE_NAMESPACE,
  ephemeralReportKind,
  fitsLabelValue,
  gvrLabel,
  LABEL_MANAGED_BY,
  LABEL_RESOURCE_GROUP,
  LABEL_RESOURCE_GVR,
  LABEL_RESOURCE_HASH,
  LABEL_RESOURCE_KIND,
  LABEL_RESOURCE_UID,
  LABEL_RESOURCE_VERSION,
  LABEL_SOURCE,
  MANAGED_BY_KYVERNO,
  policyLabel,
  REPORTS_API_VERSION,
  SOURCE_ADMISSION,
  type GroupVersionResource,
} from './labels';
import type { EphemeralReportObject, PolicyReportResult, PolicyReportSummary, ReportOwner } from './types';

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

export function buildAdmissionReport(input: AdmissionReportInput): EphemeralReportObject {
  const { resource } = input;
  const owner: ReportOwner = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    uid: resource.uid,
  };
  const labels = resourceLabels(SOURCE_ADMISSION, resource, input.resourceHash, input.gvr);
  for (const policy of input.policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const namespaced = resource.namespace !== undefined && resource.namespace !== '';
  const report: EphemeralReportObject = {
    apiVersion: REPORTS_API_VERSION,
    kind: ephemeralReportKind(resource.namespace),
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

/**
 * The labels every intermediate report carries about its resource; values too long for a label
 * (a long CRD group) are left out: the uid is what the reports controller finds reports by.
 */
export function resourceLabels(
  source: string,
  resource: { apiVersion: string; kind: string; uid: string },
  hash: string,
  gvr?: GroupVersionResource,
): Record<string, string> {
  const slash = resource.apiVersion.indexOf('/');
  const candidates: [string, string][] = [
    [LABEL_MANAGED_BY, MANAGED_BY_KYVERNO],
    [LABEL_SOURCE, source],
    [LABEL_RESOURCE_UID, resource.uid],
    [LABEL_RESOURCE_HASH, hash],
    [LABEL_RESOURCE_GROUP, slash < 0 ? '' : resource.apiVersion.slice(0, slash)],
    [LABEL_RESOURCE_VERSION, resource.apiVersion.slice(slash + 1)],
    [LABEL_RESOURCE_KIND, resource.kind],
  ];
  if (gvr) candidates.push([LABEL_RESOURCE_GVR, gvrLabel(gvr)]);
  return Object.fromEntries(candidates.filter(([, value]) => fitsLabelValue(value)));
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
  existing: EphemeralReportObject,
  incoming: EphemeralReportObject,
): EphemeralReportObject {
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
export function sameReportContent(existing: EphemeralReportObject, merged: EphemeralReportObject): boolean {
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
