/**
 * Starts a controller whose HTTP side is health and metrics only (plain HTTP): Nest init
 * (informers, election), then listen. Stop is Nest's close, once however often it is asked.
 */
import type { AddressInfo } from 'node:net';
import { Logger, type DynamicModule, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

export interface RunningHttpController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics. */
  readonly port: number;
  stop(): Promise<void>;
}

export interface ControllerStartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

export async function startHttpController(
  name: string,
  module: DynamicModule,
  listen: { readonly host: string; readonly port: number },
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  const app = await NestFactory.create<NestFastifyApplication>(
    module,
    new FastifyAdapter({ return503OnClosing: true }),
    {
      logger: options.logger ?? ['log', 'warn', 'error'],
      abortOnError: false,
    },
  );
  try {
    await app.listen(listen.port, listen.host);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  new Logger(name).log(`health and metrics on http://${listen.host}:${port}`);
  let stopping: Promise<void> | undefined;
  return { app, port, stop: () => (stopping ??= app.close()) };
}
