// The reports controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the e2e suite. Its container entry point is main.ts.
export { startReportsController } from './bootstrap';
export { REPORTS_ENVIRONMENT, REPORTS_KYVERNO_FLAGS, ReportsConfig, loadReportsConfig } from './config/reports-config';
