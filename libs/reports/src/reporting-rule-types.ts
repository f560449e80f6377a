/**
 * The rule types whose results Kyverno reports, as its `--enableReporting` flag names them (its chart's
 * `features.reporting`); every one is on by default.
 */
export const REPORTING_RULE_TYPES = ['validate', 'mutate', 'mutateExisting', 'imageVerify', 'generate'] as const;

export type ReportingRuleType = (typeof REPORTING_RULE_TYPES)[number];
