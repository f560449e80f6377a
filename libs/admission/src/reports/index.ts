export {
  reportResults,
  wantsReports,
  isPolicyReportable,
  EXCLUDE_REPORTING_LABEL,
  type ReportResult,
  type ResourceRef,
} from './report-results';
