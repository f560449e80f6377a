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
import { ephemeralReport, type ReportPolicy } from './ephemeral-report';
import { type GroupVersionResource, LABEL_RESOURCE_UID, SOURCE_ADMISSION } from './labels';
import { resultKey, sortResults, summarize } from './results';
import type { EphemeralReportObject, PolicyReportResult } from './types';

/** Everything the report is built from: one admission request's results. */
export interface AdmissionReportInput {
  /** The AdmissionRequest uid: the report's name, which makes writes idempotent. */
  requestUid: string;
  operation: string;
  /** The request's `resource` (group/version/resource). */
  gvr: GroupVersionResource;
  /**
   * `uid` is empty when the object has none yet (a mutating webhook's CREATE): the report then
   * carries an empty uid label, as Kyverno's does, until the reports controller adopts it (finds the
   * object by its kind, namespace and name, and writes its uid and owner reference).
   */
  resource: { apiVersion: string; kind: string; name: string; namespace?: string; uid: string };
  /** Kyverno's resource hash of the admitted object (see resourceHash). */
  resourceHash: string;
  policies: ReportPolicy[];
  results: PolicyReportResult[];
}

export function buildAdmissionReport(input: AdmissionReportInput): EphemeralReportObject {
  return ephemeralReport({
    name: input.requestUid,
    source: SOURCE_ADMISSION,
    resource: input.resource,
    resourceHash: input.resourceHash,
    gvr: input.gvr,
    policies: input.policies,
    results: input.results,
    owned: input.operation !== 'CREATE' && input.resource.uid !== '',
  });
}

/**
 * One report input standing for two about the same resource (same uid), waiting to be written: a
 * result for the same policy and rule is taken from `later`, the policies are the union (`later`'s
 * resourceVersion wins), and the resource, its hash and the operation are `later`'s (the object as
 * it was last admitted). The name stays `earlier`'s request uid, which a retried write of it meets.
 */
export function mergeAdmissionReportInputs(
  earlier: AdmissionReportInput,
  later: AdmissionReportInput,
): AdmissionReportInput {
  const byRule = new Map<string, PolicyReportResult>();
  for (const result of earlier.results) byRule.set(resultKey(result), result);
  for (const result of later.results) byRule.set(resultKey(result), result);
  const policies = new Map<string, ReportPolicy>();
  for (const policy of [...earlier.policies, ...later.policies])
    policies.set(`${policy.kind}/${policy.namespace ?? ''}/${policy.name}`, policy);
  return {
    ...later,
    // A mutating webhook's CREATE result knows no uid; the validating webhook's does.
    resource:
      later.resource.uid || !earlier.resource.uid ? later.resource : { ...later.resource, uid: earlier.resource.uid },
    requestUid: earlier.requestUid,
    policies: [...policies.values()],
    results: [...byRule.values()],
  };
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
  // The side that knows the resource's uid names it (a mutating webhook's CREATE report does not).
  const known = incoming.spec.owner.uid || !existing.spec?.owner?.uid ? incoming : existing;
  const uidLabel = known.metadata.labels?.[LABEL_RESOURCE_UID];
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: {
        ...(existing.metadata.labels ?? {}),
        ...incoming.metadata.labels,
        ...(uidLabel !== undefined ? { [LABEL_RESOURCE_UID]: uidLabel } : {}),
      },
      annotations: { ...(existing.metadata.annotations ?? {}), ...(incoming.metadata.annotations ?? {}) },
      ...(incoming.metadata.ownerReferences || existing.metadata.ownerReferences
        ? { ownerReferences: incoming.metadata.ownerReferences ?? existing.metadata.ownerReferences }
        : {}),
    },
    spec: { owner: known.spec.owner, summary: summarize(results), results },
  };
}

/** True when writing `merged` over `existing` would change nothing Kyverno reads. */
export function sameReportContent(existing: EphemeralReportObject, merged: EphemeralReportObject): boolean {
  return (
    JSON.stringify(existing.spec?.results ?? []) === JSON.stringify(merged.spec.results) &&
    JSON.stringify(sortedEntries(existing.metadata.labels)) === JSON.stringify(sortedEntries(merged.metadata.labels))
  );
}

function sortedEntries(record: Record<string, string> | undefined): [string, string][] {
  return Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
