/**
 * Kyverno's metrics server: `/metrics` over plain HTTP on its own port (`--metricsPort`, 8000 in
 * Kyverno's chart), beside the webhooks' HTTPS port, so that Prometheus scrapes it without TLS. Only
 * `/metrics` is served there (anything else is 404); it closes with the controller's main server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, type INestApplication } from '@nestjs/common';
import { MetricsController } from '../metrics/metrics.controller';
import { errorMessage } from '@edict/foundation';

export interface RunningMetricsPort {
  readonly port: number;
  readonly server: Server;
}

/** How long a scrape may take before its connection is cut. */
const SCRAPE_TIMEOUT_MS = 30_000;

export async function serveMetricsPort(app: INestApplication, host: string, port: number): Promise<RunningMetricsPort> {
  const metrics = app.get(MetricsController);
  const logger = new Logger('Metrics');
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    metrics.text().then(
      (text) => response.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).end(text),
      (error: unknown) => {
        logger.warn(`metrics scrape failed: ${errorMessage(error)}`);
        response.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.requestTimeout = SCRAPE_TIMEOUT_MS;
  server.headersTimeout = SCRAPE_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const main = app.getHttpServer() as Server;
  main.once('close', () => {
    server.close();
    server.closeAllConnections();
  });
  const bound = (server.address() as AddressInfo).port;
  logger.log(`metrics on http://${host}:${bound}/metrics`);
  return { port: bound, server };
}
