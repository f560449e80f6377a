// The launcher as a library, for what starts the local cluster in-process: the e2e conformance
// suite. Its entry point is main.ts.
export { startLocalCluster, type LocalCluster, type LocalClusterOptions } from './local/local-cluster';
// The controllers' RBAC as the Helm chart installs it (from the chart's rule files).
export {
  CONTROLLER_COMPONENTS,
  controllerRbac,
  controllerServiceAccount,
  type ControllerComponent,
} from './local/controller-rbac';
// The launcher's own variables, for the generated configuration reference (docs/configuration.md).
export { LAUNCHER_ENVIRONMENT, LauncherConfig } from './launcher-config';
