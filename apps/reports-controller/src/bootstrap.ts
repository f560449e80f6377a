/**
 * Starts and stops the reports controller: Nest init (policy cache, election) → listen for health
 * and metrics. Stop is Nest's close: leadership ends (the watches and the queue stop, merges in
 * progress finish), then the lease is released.
 */
import {
  startHttpController,
  type ControllerStartOptions,
  type RunningHttpController,
} from '@edict/controller-runtime';
import { ReportsControllerModule } from './app.module';
import type { ReportsConfig } from './config/reports-config';

export function startReportsController(
  config: ReportsConfig,
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  return startHttpController('ReportsController', ReportsControllerModule.forRoot(config), config, options);
}
