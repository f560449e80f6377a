/**
 * Kyverno's per-resource PolicyReport / ClusterPolicyReport (wgpolicyk8s.io/v1alpha2), or its
 * OpenReports Report / ClusterReport (openreports.io/v1alpha1, same fields), built from merged results. Pure: the reports controller decides what to merge and writes it.
 *
 * Shape (Kyverno 1.12's aggregation): named after the resource's uid, in its namespace (a
 * cluster-scoped resource gets a ClusterPolicyReport); the resource is the owner (so the garbage
 * collector removes the report with it) and the `scope`; labels managed-by and one
 * `cpol.kyverno.io/<name>` / `pol.kyverno.io/<name>` per policy holding the resourceVersion whose
 * results are in the report; `results` sorted by policy and rule, and their `summary`.
 */
import type { ReportPolicy } from './ephemeral-report';
import { goJson } from '@edict/foundation';
import { mergeKey, sortResults, summarize } from './results';
import { LABEL_MANAGED_BY, MANAGED_BY_KYVERNO, policyLabel } from './labels';
import type { PolicyReportObject, PolicyReportResult, ReportScope } from './types';

export const POLICY_REPORT_API_VERSION = 'wgpolicyk8s.io/v1alpha2';
export const POLICY_REPORT_KIND = 'PolicyReport';
export const CLUSTER_POLICY_REPORT_KIND = 'ClusterPolicyReport';
/** OpenReports (Kyverno's `--openreportsEnabled`): the same report under openreports.io/v1alpha1. */
export const OPEN_REPORTS_API_VERSION = 'openreports.io/v1alpha1';
export const OPEN_REPORT_KIND = 'Report';
export const CLUSTER_OPEN_REPORT_KIND = 'ClusterReport';

/** Which API group the per-resource reports are written in: wgpolicyk8s.io (Kyverno's default) or openreports.io. */
export type ReportFormat = 'wgpolicyk8s' | 'openreports';

/** The report's apiVersion in `format`. */
export function policyReportApiVersion(format: ReportFormat = 'wgpolicyk8s'): PolicyReportObject['apiVersion'] {
  return format === 'openreports' ? OPEN_REPORTS_API_VERSION : POLICY_REPORT_API_VERSION;
}

/** The report kind for a resource in `namespace` (none or '': cluster-scoped), in `format`. */
export function policyReportKind(
  namespace: string | undefined,
  format: ReportFormat = 'wgpolicyk8s',
): PolicyReportObject['kind'] {
  if (format === 'openreports') return namespace ? OPEN_REPORT_KIND : CLUSTER_OPEN_REPORT_KIND;
  return namespace ? POLICY_REPORT_KIND : CLUSTER_POLICY_REPORT_KIND;
}

export function buildPolicyReport(
  scope: ReportScope,
  results: readonly PolicyReportResult[],
  policies: readonly ReportPolicy[],
  format: ReportFormat = 'wgpolicyk8s',
): PolicyReportObject {
  const labels: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO };
  for (const policy of policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const sorted = sortResults(results);
  return {
    apiVersion: policyReportApiVersion(format),
    kind: policyReportKind(scope.namespace, format),
    metadata: {
      name: scope.uid,
      ...(scope.namespace ? { namespace: scope.namespace } : {}),
      labels,
      ownerReferences: [{ apiVersion: scope.apiVersion, kind: scope.kind, name: scope.name, uid: scope.uid }],
    },
    scope: { ...scope },
    summary: summarize(sorted),
    results: sorted,
  };
}

/**
 * The newest result per policy and rule (per policy for a MutatingPolicy, as Kyverno merges): `base` (what the report holds) updated by each batch of
 * `incoming` in order; a result replaces the one it meets unless that one is strictly newer, so
 * of two results in the same second the later batch wins.
 */
export function mergeResults(
  base: readonly PolicyReportResult[],
  incoming: readonly (readonly PolicyReportResult[])[],
): PolicyReportResult[] {
  const byRule = new Map<string, PolicyReportResult>();
  for (const result of base) byRule.set(mergeKey(result), result);
  for (const batch of incoming) {
    for (const result of batch) {
      const key = mergeKey(result);
      const current = byRule.get(key);
      if (!current || current.timestamp.seconds <= result.timestamp.seconds) byRule.set(key, result);
    }
  }
  return sortResults([...byRule.values()]);
}

/** True when writing `desired` over `existing` would change nothing a reader sees (key order aside). */
export function samePolicyReport(existing: PolicyReportObject, desired: PolicyReportObject): boolean {
  return (
    goJson(sortResults(existing.results ?? [])) === goJson(desired.results) &&
    goJson(existing.scope) === goJson(desired.scope) &&
    goJson(existing.summary) === goJson(desired.summary) &&
    goJson(existing.metadata.labels) === goJson(desired.metadata.labels) &&
    goJson(existing.metadata.ownerReferences ?? []) === goJson(desired.metadata.ownerReferences)
  );
}
