/** What every report does with its results: key them by policy and rule, order them, count them. */
import type { PolicyReportResult, PolicyReportSummary } from './types';

/**
 * One result per policy, rule and source: its key (a ClusterPolicy and a ValidatingPolicy may
 * share a name; Kyverno keys their results apart by `source`).
 */
export function resultKey(result: PolicyReportResult): string {
  return `${result.policy}\u0000${result.rule}\u0000${result.source}`;
}

/**
 * Sources whose policies Kyverno's aggregation keeps one result for, whatever its rule (a
 * MutatingPolicy answers one rule: `` or `exception`).
 */
const ONE_RESULT_PER_POLICY: ReadonlySet<string> = new Set(['KyvernoMutatingPolicy']);

/** What aggregation keeps the newest of: one result per resultKey, or per policy for ONE_RESULT_PER_POLICY sources. */
export function mergeKey(result: PolicyReportResult): string {
  return ONE_RESULT_PER_POLICY.has(result.source) ? `${result.policy}\u0000\u0000${result.source}` : resultKey(result);
}

/** Policy, rule then source order (Kyverno's), so the same results always serialize the same way. */
export function sortResults(results: readonly PolicyReportResult[]): PolicyReportResult[] {
  // Keys built once per result, not twice per comparison.
  const keyed = results.map((result) => ({ key: resultKey(result), result }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map(({ result }) => result);
}

/** Counts per result, as PolicyReportSummary. */
export function summarize(results: readonly PolicyReportResult[]): PolicyReportSummary {
  const summary: PolicyReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const result of results) summary[result.result] += 1;
  return summary;
}
