/** A cleanup controller for e2e specs against an E2eCluster: short leases and watches. */
import type { E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller';
import { startCleanupController } from '../bootstrap';
import { loadCleanupConfig, type CleanupConfig } from '../config/cleanup-config';

export function startTestCleanup(
  cluster: E2eCluster,
  overrides: Partial<CleanupConfig> = {},
): Promise<RunningHttpController> {
  const config = loadCleanupConfig(
    {},
    {
      kubeSource: 'kubeconfig',
      kubeconfig: cluster.kubeconfig,
      host: '127.0.0.1',
      port: 0,
      watchTimeoutSeconds: 5,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 200,
      ...overrides,
    },
  );
  return startCleanupController(config, { logger: ['error'] });
}
