// @edict/reports: Kyverno's admission reports (built, capped, queued, written idempotently) and the
// per-resource PolicyReports the reports controller merges them into.
export { ReportsModule, type ReportsModuleConfig, type ReportsModuleAsyncConfig } from './reports.module';
export {
  ReportsModuleOptions,
  ReportsOptionsError,
  resolveReportsOptions,
  type ResolvedReportsOptions,
} from './reports.options';
export { REPORTS_OPTIONS, REPORT_STORE, REPORT_COUNTER } from './reports.constants';
export { AdmissionReportQueue } from './admission-report-queue';
export {
  buildAdmissionReport,
  mergeAdmissionReports,
  sameReportContent,
  type AdmissionReportInput,
} from './report/admission-report';
export type { ReportPolicy } from './report/ephemeral-report';
export { admissionReportInput, toPolicyReportResult, type ReportRequestFacts } from './report/from-results';
export * from './report/labels';
export { summarize } from './report/results';
export { buildBackgroundReport, isBackgroundReport, type BackgroundReportInput } from './report/background-report';
export {
  buildPolicyReport,
  mergeResults,
  policyReportApiVersion,
  policyReportKind,
  samePolicyReport,
  POLICY_REPORT_API_VERSION,
  POLICY_REPORT_KIND,
  CLUSTER_POLICY_REPORT_KIND,
  OPEN_REPORTS_API_VERSION,
  OPEN_REPORT_KIND,
  CLUSTER_OPEN_REPORT_KIND,
  type ReportFormat,
} from './report/policy-report';
export type * from './report/types';
export { resourceHash } from './report/resource-hash';
export {
  buildUpdateRequestReport,
  celReportPolicy,
  reportedObject,
  reportSubject,
  type UpdateRequestReportInput,
} from './report/update-request-report';
export {
  allowedResults,
  REPORTING_RULE_TYPES,
  REPORT_RESULT_TYPES,
  type ReportingRuleType,
  type ReportResultType,
} from './reporting-rule-types';
export { AdmissionReportWriter, type WriteOutcome } from './writer/admission-report-writer';
export { KubeReportStore, ReportConflictError, ReportExistsError, type ReportStore } from './writer/report-store';
export {
  InformerReportCounter,
  type ReportCount,
  type ReportCounter,
  type InformerReportCounterOptions,
} from './cap/report-counter';
export { ReportBreaker, type BreakerListener } from './cap/report-breaker';
export { ReportsMetrics, ADMISSION_REPORTS_CIRCUIT } from './metrics/reports-metrics';
