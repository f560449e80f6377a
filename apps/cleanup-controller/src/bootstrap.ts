/**
 * Starts and stops the cleanup controller: Nest init (election) → listen for health and metrics.
 * Stop is Nest's close: leadership ends (informers, timers and queues stop, the lease is released),
 * then the pending Events are written (drainTimeoutMs).
 */
import { startHttpController, type ControllerStartOptions, type RunningHttpController } from '@edict/controller';
import { CleanupControllerModule } from './app.module';
import type { CleanupConfig } from './config/cleanup-config';

export function startCleanupController(
  config: CleanupConfig,
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  return startHttpController('CleanupController', CleanupControllerModule.forRoot(config), config, options);
}
