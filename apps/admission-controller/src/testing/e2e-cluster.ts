/**
 * The admission controller's e2e harness: a TestCluster (libs/controller-runtime's) with admission
 * controller replicas started against it, their Service mapped to the replica started last.
 */
import { PolicyCache } from '@edict/policy';
import { startTestCluster, type TestCluster, type TestClusterOptions } from '@edict/controller-runtime/testing';
import { startController, type RunningController, type StartOptions } from '../bootstrap';
import { loadControllerConfig, type ControllerConfig } from '../config/controller-config';

/** Short timings so a spec takes seconds. */
export const TEST_TIMINGS: Partial<ControllerConfig> = {
  watchTimeoutSeconds: 5,
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 200,
  shutdownDelayMs: 0,
  drainTimeoutMs: 2_000,
  tlsReadyTimeoutMs: 10_000,
};

export interface E2eCluster extends TestCluster {
  /** Starts a controller replica; the Service points at the replica started last. Logs errors only unless `options.logger` says otherwise. */
  startReplica(overrides?: Partial<ControllerConfig>, options?: StartOptions): Promise<RunningController>;
}

export type E2eClusterOptions = TestClusterOptions;

export async function startE2eCluster(options: E2eClusterOptions = {}): Promise<E2eCluster> {
  const cluster = await startTestCluster(options);
  const replicas: RunningController[] = [];
  cluster.onStop(async () => {
    await Promise.all(replicas.map((replica) => replica.stop().catch(() => undefined)));
  });
  return Object.assign(cluster, {
    async startReplica(overrides: Partial<ControllerConfig> = {}, startOptions: StartOptions = {}) {
      const config = loadControllerConfig(
        {},
        {
          kubeSource: 'kubeconfig',
          kubeconfig: cluster.kubeconfig,
          installName: cluster.names.installName,
          host: '127.0.0.1',
          port: 0,
          ...TEST_TIMINGS,
          ...overrides,
        },
      );
      const replica = await startController(config, { logger: ['error'], ...startOptions });
      replicas.push(replica);
      cluster.routeService(config.namespace, config.serviceName, replica.port);
      cluster.trackPolicyCache(replica.app.get(PolicyCache));
      await replica.app.get(PolicyCache).waitForSync(5_000);
      return replica;
    },
  });
}
