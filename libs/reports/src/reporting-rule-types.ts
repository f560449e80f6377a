/**
 * The rule types whose results Kyverno reports, as its `--enableReporting` flag names them (its chart's
 * `features.reporting`); every one is on by default.
 */
export const REPORTING_RULE_TYPES = ['validate', 'mutate', 'mutateExisting', 'imageVerify', 'generate'] as const;

export type ReportingRuleType = (typeof REPORTING_RULE_TYPES)[number];

/**
 * The result types a report may hold, as Kyverno's `--allowedResults` flag names them (its chart's
 * `features.reporting.allowedResults`, one boolean per type). An empty list allows every type.
 */
export const REPORT_RESULT_TYPES = ['pass', 'fail', 'warn', 'error', 'skip'] as const;

export type ReportResultType = (typeof REPORT_RESULT_TYPES)[number];

/**
 * The results a report keeps under `allowed` (Kyverno's `--allowedResults`): those whose result is
 * listed, or all of them when the list is empty (the flag's default).
 */
export function allowedResults<T extends { readonly result: string }>(
  results: readonly T[],
  allowed: readonly ReportResultType[],
): T[] {
  if (allowed.length === 0) return [...results];
  const set: ReadonlySet<string> = new Set(allowed);
  return results.filter((result) => set.has(result.result));
}
