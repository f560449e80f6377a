// @edict/reports-controller/testing: the reports controller started for e2e specs (test/e2e), and what
// they read from a running one.
export { startTestReports } from './start-test-reports';
export { ReportsControllerMetrics } from '../metrics/reports-controller-metrics';
