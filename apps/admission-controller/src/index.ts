// The admission controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the bench. Its container entry point is main.ts.
export { startController, type RunningController, type StartOptions } from './bootstrap';
export { CONFIG_VARIABLES, ControllerConfig, loadControllerConfig } from './config/controller-config';
