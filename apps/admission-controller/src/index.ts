// The admission controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the bench. Its container entry point is main.ts.
export { startController, type RunningController, type StartOptions } from './bootstrap';
export {
  ADMISSION_ENVIRONMENT,
  ADMISSION_KYVERNO_FLAGS,
  ControllerConfig,
  loadControllerConfig,
} from './config/controller-config';
export {
  UpdateRequestCreator,
  UPDATE_REQUEST_WRITERS,
  type UpdateRequestJob,
} from './after-admission/update-request-creator';
export { ReviewWorkers } from './workers/review-workers';
export { reviewWorkerCount } from './workers/worker-count';
