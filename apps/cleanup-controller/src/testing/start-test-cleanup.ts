/** A cleanup controller for e2e specs against an E2eCluster: short leases and watches. */
import type { E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller';
import { testControllerSettings } from '@edict/controller/testing';
import { startCleanupController } from '../bootstrap';
import { loadCleanupConfig, type CleanupConfig } from '../config/cleanup-config';

export function startTestCleanup(
  cluster: E2eCluster,
  overrides: Partial<CleanupConfig> = {},
): Promise<RunningHttpController> {
  const config = loadCleanupConfig({}, { ...testControllerSettings(cluster), ...overrides });
  return startCleanupController(config, { logger: ['error'] });
}
