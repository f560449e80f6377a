/**
 * Starts and stops the cleanup controller: Nest init (election) → listen for health and metrics.
 * Stop is Nest's close: leadership ends (informers, timers and queues stop, the lease is released),
 * then the pending Events are written (drainTimeoutMs).
 */
import type { AddressInfo } from 'node:net';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CleanupControllerModule } from './app.module';
import type { CleanupConfig } from './config/cleanup-config';

export interface RunningCleanupController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics. */
  readonly port: number;
  stop(): Promise<void>;
}

export interface CleanupStartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

export async function startCleanupController(
  config: CleanupConfig,
  options: CleanupStartOptions = {},
): Promise<RunningCleanupController> {
  const app = await NestFactory.create<NestFastifyApplication>(
    CleanupControllerModule.forRoot(config),
    new FastifyAdapter({ return503OnClosing: true }),
    { logger: options.logger ?? ['log', 'warn', 'error'], abortOnError: false },
  );
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  new Logger('CleanupController').log(`health and metrics on http://${config.host}:${port}`);
  let stopping: Promise<void> | undefined;
  return { app, port, stop: () => (stopping ??= app.close()) };
}
