/** A background controller for e2e specs against a TestCluster: short leases, watches and retries. */
import { type TestCluster, testControllerSettings } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startBackgroundController } from '../bootstrap';
import { loadBackgroundConfig, type BackgroundConfig } from '../config/background-config';

export function startTestBackground(
  cluster: TestCluster,
  overrides: Partial<BackgroundConfig> = {},
): Promise<RunningHttpController> {
  const config = loadBackgroundConfig({}, { ...testControllerSettings(cluster), retryDelayMs: 100, ...overrides });
  return startBackgroundController(config, { logger: ['error'] });
}
