/** What every report does with its results: key them by policy and rule, order them, count them. */
import type { PolicyReportResult, PolicyReportSummary } from './types';

/** One result per policy and rule: its key. */
export function resultKey(result: PolicyReportResult): string {
  return `${result.policy}\u0000${result.rule}`;
}

/** Policy then rule order, so the same results always serialize the same way. */
export function sortResults(results: readonly PolicyReportResult[]): PolicyReportResult[] {
  return [...results].sort((a, b) => {
    const left = resultKey(a);
    const right = resultKey(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

/** Counts per result, as PolicyReportSummary. */
export function summarize(results: readonly PolicyReportResult[]): PolicyReportSummary {
  const summary: PolicyReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const result of results) summary[result.result] += 1;
  return summary;
}
