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
import { serveMetricsPort } from './metrics-port';

export interface RunningHttpController {
  readonly app: NestFastifyApplication;
  /** The port of /healthz, /readyz and /metrics (and of the webhooks, with `tls`). */
  readonly port: number;
  /** The plain-HTTP metrics port, when one is served apart. */
  readonly metricsPort?: number;
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
  /** Kyverno's --metricsPort: `/metrics` over plain HTTP there too (unless it is this plain-HTTP port). */
  readonly metricsPort?: number;
  /** Kyverno's --disableMetrics: no metrics port. */
  readonly disableMetrics?: boolean;
}

/** Whether `/metrics` gets a plain-HTTP port of its own. */
export function separateMetricsPort(listen: HttpListen): number | undefined {
  if (listen.disableMetrics || listen.metricsPort === undefined) return undefined;
  if (!listen.tls && listen.metricsPort === listen.port && listen.port !== 0) return undefined;
  return listen.metricsPort;
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
  const metricsPortWanted = separateMetricsPort(listen);
  let metricsPort: number | undefined;
  if (metricsPortWanted !== undefined) {
    try {
      metricsPort = (await serveMetricsPort(app, listen.host, metricsPortWanted)).port;
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
  }
  new Logger(name).log(
    `${listen.tls ? 'webhooks, ' : ''}health and metrics on ${listen.tls ? 'https' : 'http'}://${listen.host}:${port}`,
  );
  let stopping: Promise<void> | undefined;
  return { app, port, ...(metricsPort === undefined ? {} : { metricsPort }), stop: () => (stopping ??= app.close()) };
}
