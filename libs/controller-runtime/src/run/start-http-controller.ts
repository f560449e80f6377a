/**
 * Starts a controller's HTTP side: health and metrics, and for a webhook server its webhooks. Plain
 * HTTP, or with `tls` HTTPS with the app's serving certificate (TlsMaterial), bound live so that a
 * renewal needs no restart. Nest init (informers, election, certificates) → (wait for the
 * certificate) → listen. Stop is Nest's close, once however often it is asked.
 */
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Logger, type DynamicModule, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LiveSecureContext, SERVING_TLS_OPTIONS, TlsMaterial } from '@edict/cert';
import { controllerLogger, type LoggingSettings } from '../logging/controller-logger';
import { gracefulClose } from './graceful-close';

export interface RunningHttpController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics (and of the webhooks, with `tls`). */
  readonly port: number;
  stop(): Promise<void>;
}

export interface ControllerStartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

export interface HttpListen {
  readonly host: string;
  readonly port: number;
  /** Serve HTTPS with the app's TlsMaterial, waiting this long for a first certificate. */
  readonly tls?: { readonly readyTimeoutMs: number };
}

/** How long the requests in flight have to finish once the server closes before their connections are cut. */
const STOP_GRACE_MS = 5_000;

export async function startHttpController(
  name: string,
  module: DynamicModule,
  listen: HttpListen & Partial<LoggingSettings>,
  options: ControllerStartOptions = {},
): Promise<RunningHttpController> {
  let server: Server | undefined;
  const adapter = new FastifyAdapter({
    // A request that reaches a closing server is still answered (with `Connection: close`).
    return503OnClosing: false,
    // The certificate comes later (from the Secrets): the server starts without one, bound below.
    ...(listen.tls
      ? { serverFactory: (handler: RequestListener) => (server = createServer(SERVING_TLS_OPTIONS, handler)) }
      : {}),
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    // The controller's Kyverno logging settings (its config is what it listens with).
    logger:
      options.logger ??
      controllerLogger({
        loggingFormat: listen.loggingFormat ?? 'text',
        verbosity: listen.verbosity ?? 2,
        loggingTimestampFormat: listen.loggingTimestampFormat,
      }),
    abortOnError: false,
  });
  gracefulClose(app.getHttpServer(), STOP_GRACE_MS);
  try {
    if (listen.tls) {
      await app.init();
      const material = app.get(TlsMaterial);
      await material.ready(listen.tls.readyTimeoutMs);
      const live = new LiveSecureContext(material);
      live.bind(server!);
      server!.once('close', () => live.close());
    }
    await app.listen(listen.port, listen.host);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  new Logger(name).log(
    `${listen.tls ? 'webhooks, ' : ''}health and metrics on ${listen.tls ? 'https' : 'http'}://${listen.host}:${port}`,
  );
  let stopping: Promise<void> | undefined;
  return { app, port, stop: () => (stopping ??= app.close()) };
}
