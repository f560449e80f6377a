/** A background controller for e2e specs against an E2eCluster: short leases, watches and retries. */
import type { E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller';
import { startBackgroundController } from '../bootstrap';
import { loadBackgroundConfig, type BackgroundConfig } from '../config/background-config';

export function startTestBackground(
  cluster: E2eCluster,
  overrides: Partial<BackgroundConfig> = {},
): Promise<RunningHttpController> {
  const config = loadBackgroundConfig(
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
      retryDelayMs: 100,
      ...overrides,
    },
  );
  return startBackgroundController(config, { logger: ['error'] });
}
