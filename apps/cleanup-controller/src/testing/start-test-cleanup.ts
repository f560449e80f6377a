/**
 * A cleanup controller for e2e specs against a TestCluster: short leases and watches, its Service
 * routed to it (the replica started last), so that the API server calls its webhook.
 */
import { type TestCluster, testControllerSettings } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startCleanupController } from '../bootstrap';
import { loadCleanupConfig, type CleanupConfig } from '../config/cleanup-config';

export async function startTestCleanup(
  cluster: TestCluster,
  overrides: Partial<CleanupConfig> = {},
): Promise<RunningHttpController> {
  const config = loadCleanupConfig({}, { ...testControllerSettings(cluster), tlsReadyTimeoutMs: 10_000, ...overrides });
  const replica = await startCleanupController(config, { logger: ['error'] });
  cluster.routeService(config.namespace, config.serviceName, replica.port);
  return replica;
}
