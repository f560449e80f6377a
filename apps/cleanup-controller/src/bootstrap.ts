/**
 * Starts and stops the cleanup controller: Nest init (election, certificates) → wait for the
 * serving certificate → serve the webhook, health and metrics over HTTPS. Stop: the webhook
 * configuration goes if the Deployment is scaled to zero, then Nest's close: leadership ends
 * (informers, timers and queues stop, the lease is released), then the pending Events are written
 * (drainTimeoutMs).
 */
import { Logger } from '@nestjs/common';
import {
  removeWebhooksIfScaledToZero,
  startHttpController,
  type ControllerStartOptions,
  type RunningHttpController,
} from '@edict/controller-runtime';
import { CleanupControllerModule } from './app.module';
import type { CleanupConfig } from './config/cleanup-config';

const NAME = 'CleanupController';

export async function startCleanupController(
  config: CleanupConfig,
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  const running = await startHttpController(
    NAME,
    CleanupControllerModule.forRoot(config),
    {
      host: config.host,
      port: config.port,
      tls: { readyTimeoutMs: config.tlsReadyTimeoutMs },
      ...(config.metricsPort === undefined ? {} : { metricsPort: config.metricsPort }),
      disableMetrics: config.disableMetrics,
    },
    options,
  );
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    await removeWebhooksIfScaledToZero(running.app, new Logger(NAME));
    await running.stop();
  };
  return { ...running, stop: () => (stopping ??= stop()) };
}
