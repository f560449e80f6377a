/**
 * Starts and stops the admission controller. Order matters on both ends:
 *  - start: Nest init (informers, election, certificates) → wait for the serving certificate →
 *    bind it live to the HTTPS server (rotation needs no restart) → listen;
 *  - stop: unready (answers close their kept-alive connections from then on) → remove the webhook
 *    configurations if the Deployment is scaled to zero → step down (lease released, so another replica leads within a second, not after the drain) → keep
 *    serving `shutdownDelayMs` (endpoints drop the pod) → stop accepting and finish in-flight
 *    reviews → drain the after-admission work (reports, update requests, events) → stop the review
 *    workers once their audits are done → Nest close (informers stopped).
 */
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LiveSecureContext, SERVING_TLS_OPTIONS, TlsMaterial } from '@edict/cert';
import {
  controllerLogger,
  gracefulClose,
  removeWebhooksIfScaledToZero,
  separateMetricsPort,
  serveMetricsPort,
} from '@edict/controller-runtime';
import { LeaderService } from '@edict/leader';
import { setUpSwagger } from './admin/swagger';
import { AdmissionControllerModule } from './app.module';
import type { ControllerConfig } from './config/controller-config';
import { LifecycleState } from './lifecycle/lifecycle-state';
import { AfterAdmissionService } from './after-admission/after-admission.service';
import { AdmissionService } from './webhooks/admission.service';
import { stampArrival } from './webhooks/arrival';
import { ReviewWorkers } from './workers/review-workers';

export interface RunningController {
  readonly app: NestFastifyApplication;
  readonly port: number;
  /** Kyverno's metrics port (plain HTTP), when configured. */
  readonly metricsPort?: number;
  /** The CA bundle (PEM) webhook configurations must carry. */
  caBundlePem(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly logger?: LoggerService | LogLevel[] | false;
}

/** Once the reviews are answered, how long connections that sent nothing may keep the server open. */
const SILENT_CONNECTION_GRACE_MS = 1_000;

export async function startController(
  config: ControllerConfig,
  options: StartOptions = {},
): Promise<RunningController> {
  let server: Server | undefined;
  const timeouts = {
    requestTimeout: config.httpRequestTimeoutMs,
    keepAliveTimeout: config.httpIdleTimeoutMs,
  };
  let metricsPort: number | undefined;
  const adapter = new FastifyAdapter({
    bodyLimit: config.maxBodyBytes,
    // Fastify applies these to the server its factory returns (it would otherwise reset them).
    ...timeouts,
    // Certificates come later (from the Secrets), so the server starts without any; see below.
    // The TLS versions and suites come with them (LiveSecureContext: SERVING_TLS_OPTIONS).
    serverFactory: (handler: RequestListener) => {
      server = createServer(
        { ...SERVING_TLS_OPTIONS, ...timeouts, headersTimeout: config.httpHeadersTimeoutMs },
        handler,
      );
      // In-flight reviews have the drain timeout to finish; a connection that sent nothing, a second more.
      gracefulClose(server, config.drainTimeoutMs + SILENT_CONNECTION_GRACE_MS);
      return server;
    },
    // A review that reaches a closing server is still answered (with `Connection: close`), as Go's
    // http.Server does during Shutdown: a 503 would be a failed admission.
    return503OnClosing: false,
    // `__proto__`/`constructor` are legal data keys (a ConfigMap's): JSON.parse keeps them as own properties.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  });
  const app = await NestFactory.create<NestFastifyApplication>(AdmissionControllerModule.forRoot(config), adapter, {
    logger: options.logger ?? controllerLogger(config),
    abortOnError: false,
    // Each review's body as received, besides its parsed form: review workers are sent the text.
    rawBody: true,
  });
  closeConnectionsWhenStopping(app);
  stampArrival(app.getHttpAdapter().getInstance());
  try {
    if (config.adminEndpoints) setUpSwagger(app);
    await app.init();
    const material = app.get(TlsMaterial);
    await material.ready(config.tlsReadyTimeoutMs);
    const live = new LiveSecureContext(material);
    live.bind(server!);
    server!.once('close', () => live.close());
    await app.listen(config.port, config.host);
    const wanted = separateMetricsPort({ ...config, tls: { readyTimeoutMs: config.tlsReadyTimeoutMs } });
    if (wanted !== undefined) metricsPort = (await serveMetricsPort(app, config.host, wanted)).port;
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const port = (server!.address() as AddressInfo).port;
  new Logger('AdmissionController').log(`webhooks serving HTTPS on ${config.host}:${port}`);
  let stopping: Promise<void> | undefined;
  return {
    app,
    port,
    ...(metricsPort === undefined ? {} : { metricsPort }),
    caBundlePem: () => app.get(TlsMaterial).current()?.caBundlePem ?? '',
    stop: () => (stopping ??= stopController(app, config)),
  };
}

/**
 * Once shutdown begins, every answer carries `Connection: close`: the API server keeps webhook
 * connections alive, and a connection pinned to this replica would otherwise outlive its removal
 * from the Service and be cut when the server closes (a failed admission). Closed after their
 * answer, they dial the Service again and reach a replica still in it.
 */
function closeConnectionsWhenStopping(app: NestFastifyApplication): void {
  const lifecycle = app.get(LifecycleState);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', (_request, reply, payload, done) => {
      if (lifecycle.isShuttingDown()) void reply.header('connection', 'close');
      done(null, payload);
    });
}

async function stopController(app: NestFastifyApplication, config: ControllerConfig): Promise<void> {
  const logger = new Logger('AdmissionController');
  app.get(LifecycleState).beginShutdown();
  await removeWebhooksIfScaledToZero(app, logger);
  // Serving and after-admission work need no leadership; certificates and webhook configurations do.
  // Stepping down runs beside the delay: a slow API server must not stretch the shutdown.
  const steppingDown = app.get(LeaderService).stop();
  if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
  // Fastify stops accepting, closes idle connections once what they sent is read, and waits for
  // in-flight requests.
  const closing = app.getHttpAdapter().getInstance().close();
  const drained = await app.get(AdmissionService).limiter.drain(config.drainTimeoutMs);
  if (!drained) logger.warn(`reviews still running after ${config.drainTimeoutMs}ms; closing anyway`);
  await closing;
  // The last reviews are answered: write the reports, update requests and events they left.
  const after = app.get(AfterAdmissionService);
  if (!(await after.drain(config.drainTimeoutMs)))
    logger.warn(`after-admission work still queued after ${config.drainTimeoutMs}ms; dropped: ${after.backlog()}`);
  else if (after.events.stats().pending > 0)
    logger.log(`${after.events.stats().pending} rate-limited events not written (best effort)`);
  if (!(await app.get(ReviewWorkers).close(config.drainTimeoutMs)))
    logger.warn(`review workers still busy after ${config.drainTimeoutMs}ms; stopped`);
  await steppingDown;
  await app.close();
}
