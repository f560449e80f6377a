/**
 * Kyverno's per-resource PolicyReport / ClusterPolicyReport (wgpolicyk8s.io/v1alpha2), built from
 * merged results. Pure: the reports controller decides what to merge and writes it.
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

/** The report kind for a resource in `namespace` (none or '': cluster-scoped). */
export function policyReportKind(namespace: string | undefined): PolicyReportObject['kind'] {
  return namespace ? POLICY_REPORT_KIND : CLUSTER_POLICY_REPORT_KIND;
}

export function buildPolicyReport(
  scope: ReportScope,
  results: readonly PolicyReportResult[],
  policies: readonly ReportPolicy[],
): PolicyReportObject {
  const labels: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO };
  for (const policy of policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const sorted = sortResults(results);
  return {
    apiVersion: POLICY_REPORT_API_VERSION,
    kind: policyReportKind(scope.namespace),
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
