// The background controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the e2e suite. Its container entry point is main.ts.
export { startBackgroundController } from './bootstrap';
export {
  BACKGROUND_ENVIRONMENT,
  BACKGROUND_KYVERNO_FLAGS,
  BackgroundConfig,
  loadBackgroundConfig,
} from './config/background-config';
// The UpdateRequest write path alone, for the tenant-isolation fuzzer (test/fuzz).
export { UpdateRequestProcessor } from './update-requests/update-request-processor';
export { kubeClusterObjects } from './update-requests/cluster-objects';
export { UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND } from './update-requests/update-request';
