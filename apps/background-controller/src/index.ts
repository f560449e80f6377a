// The background controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the e2e suite. Its container entry point is main.ts.
export { startBackgroundController } from './bootstrap';
export { BACKGROUND_ENVIRONMENT, BackgroundConfig, loadBackgroundConfig } from './config/background-config';
