/**
 * Starts and stops the background controller: Nest init (informers, election) → listen for health
 * and metrics. Stop is Nest's close: leadership ends (the watch and queue stop, requests in progress
 * finish their step, the lease is released), then the pending Events are written (drainTimeoutMs).
 */
import {
  startHttpController,
  type ControllerStartOptions,
  type RunningHttpController,
} from '@edict/controller-runtime';
import { BackgroundControllerModule } from './app.module';
import type { BackgroundConfig } from './config/background-config';

export function startBackgroundController(
  config: BackgroundConfig,
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  return startHttpController('BackgroundController', BackgroundControllerModule.forRoot(config), config, options);
}
