// The reports controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the e2e suite. Its container entry point is main.ts.
export { startReportsController, type ReportsStartOptions, type RunningReportsController } from './bootstrap';
export {
  REPORTS_CONFIG_VARIABLES,
  ReportsConfig,
  ReportsConfigError,
  loadReportsConfig,
} from './config/reports-config';
