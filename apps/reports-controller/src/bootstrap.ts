/**
 * Starts and stops the reports controller: Nest init (policy cache, election) → listen for health
 * and metrics. Stop is Nest's close: leadership ends (the watches and the queue stop, merges in
 * progress finish), then the lease is released.
 */
import type { AddressInfo } from 'node:net';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ReportsControllerModule } from './app.module';
import type { ReportsConfig } from './config/reports-config';

export interface RunningReportsController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics. */
  readonly port: number;
  stop(): Promise<void>;
}

export interface ReportsStartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

export async function startReportsController(
  config: ReportsConfig,
  options: ReportsStartOptions = {},
): Promise<RunningReportsController> {
  const app = await NestFactory.create<NestFastifyApplication>(
    ReportsControllerModule.forRoot(config),
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
  new Logger('ReportsController').log(`health and metrics on http://${config.host}:${port}`);
  let stopping: Promise<void> | undefined;
  return { app, port, stop: () => (stopping ??= app.close()) };
}
