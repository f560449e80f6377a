// @edict/controller-runtime/testing: what every controller's e2e specs start it with.
import type { InstallNames } from '@edict/config';
import type { ControllerBaseConfig } from '../config/controller-config';

/** A test cluster as the specs hold it: its kubeconfig and the names it installs under. */
export interface TestClusterAccess {
  readonly kubeconfig: string;
  readonly names: Pick<InstallNames, 'installName'>;
}

/**
 * Settings for a controller under an e2e spec: the cluster's kubeconfig and install name, health on
 * any free local port, and short watches and leases so that specs see changes and takeovers quickly.
 */
export function testControllerSettings(
  cluster: TestClusterAccess,
): Partial<ControllerBaseConfig> & { host: string; port: number } {
  return {
    installName: cluster.names.installName,
    kubeSource: 'kubeconfig',
    kubeconfig: cluster.kubeconfig,
    host: '127.0.0.1',
    port: 0,
    watchTimeoutSeconds: 5,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 200,
  };
}
export * from './test-cluster';
