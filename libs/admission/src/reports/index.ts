export { reportResults, wantsReports, type ReportResult, type ResourceRef } from './report-results';
