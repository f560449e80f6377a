/**
 * Starts and stops the background controller: Nest init (informers, election) → listen for health
 * and metrics. Stop is Nest's close: leadership ends (the watch and queue stop, requests in progress
 * finish their step, the lease is released), then the pending Events are written (drainTimeoutMs).
 */
import type { AddressInfo } from 'node:net';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { BackgroundControllerModule } from './app.module';
import type { BackgroundConfig } from './config/background-config';

export interface RunningBackgroundController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics. */
  readonly port: number;
  stop(): Promise<void>;
}

export interface BackgroundStartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

export async function startBackgroundController(
  config: BackgroundConfig,
  options: BackgroundStartOptions = {},
): Promise<RunningBackgroundController> {
  const app = await NestFactory.create<NestFastifyApplication>(
    BackgroundControllerModule.forRoot(config),
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
  new Logger('BackgroundController').log(`health and metrics on http://${config.host}:${port}`);
  let stopping: Promise<void> | undefined;
  return { app, port, stop: () => (stopping ??= app.close()) };
}
