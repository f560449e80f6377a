/**
 * The HTTP front of the API server: listens (HTTPS with client certificates when there is a cluster
 * CA), records and fault-injects requests, authorizes them under RBAC, serves health, version,
 * discovery and OpenAPI, and hands resource paths to the router.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SERVING_TLS_OPTIONS } from '@edict/config';
import type { JsonObject } from '@edict/foundation';
import type { ResourceRegistry } from '../registry/registry';
import type { AuthorizationMode } from '../resources/reviews';
import { pathNotFound } from '../status';
import type { ObjectStore } from '../store/object-store';
import type { ClusterCa } from '../tls/cluster-ca';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, rootPaths, SERVER_VERSION } from './discovery';
import type { FaultInjector } from './faults';
import { sendError, sendJson, sendText } from './io';
import { serveOpenApi } from './openapi-http';
import { authenticatedUser, impersonationOf } from './request-context';
import { authorizeRequest, requestAttributes } from './request-authorization';
import type { RequestLog } from './request-log';
import { resolveResourcePath } from './route';
import type { ResourceRouter } from './router';

export interface StartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
}

export interface HttpServerParts {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly router: ResourceRouter;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly authorizationMode: AuthorizationMode;
  readonly ca: ClusterCa | undefined;
}

export class HttpServer {
  private server: Server | undefined;
  private address = '127.0.0.1:0';

  constructor(private readonly parts: HttpServerParts) {}

  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Listens on `host:port` (default 127.0.0.1, a free port) and resolves with the base URL. */
  async start(options: StartOptions = {}): Promise<{ url: string; port: number }> {
    if (this.server) throw new Error('InMemoryApiServer is already started');
    const { ca } = this.parts;
    const host = options.host ?? '127.0.0.1';
    const handler = (request: IncomingMessage, response: ServerResponse) => void this.handle(request, response);
    let server: Server;
    if (ca) {
      const serving = await ca.serving({ dns: ['localhost', 'kubernetes.default.svc'], ips: [host] });
      // Client certificates are asked for, not required: a request without one is the default user.
      // The same versions and suites as the webhook's (no CBC, no RSA key exchange, TLS 1.2 or newer).
      const tls = {
        ...SERVING_TLS_OPTIONS,
        cert: serving.certPem,
        key: serving.keyPem,
        ca: [ca.certificatePem],
        requestCert: true,
      };
      server = createTlsServer({ ...tls, rejectUnauthorized: false }, handler);
    } else {
      server = createServer(handler);
    }
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { address, port } = server.address() as AddressInfo;
    this.address = `${address}:${port}`;
    return { url: `${ca ? 'https' : 'http'}://${address}:${port}`, port };
  }

  /** Stops listening and drops every connection; `beforeClose` runs first (watches end, webhook agents close). */
  async stop(beforeClose: () => void): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    beforeClose();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { faults, requests, registry, router } = this.parts;
    try {
      requests.observe(request, response);
      if (await faults.intercept(request, response)) return;
      const url = new URL(request.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/\/+$/, '') || '/';
      if (this.parts.authorizationMode === 'RBAC') {
        const attributes = requestAttributes(request.method ?? 'GET', url.pathname, url.searchParams);
        authorizeRequest(this.parts.store, authenticatedUser(request), impersonationOf(request), attributes);
      }
      if (this.serveStatic(path, response) || serveOpenApi(registry, path, request, response)) return;
      const route = resolveResourcePath(registry, path);
      if (!route || 'unknown' in route) throw pathNotFound();
      await router.serve(route, request, url.searchParams, response);
    } catch (error) {
      if (!response.headersSent) sendError(response, error);
      else response.end();
    }
  }

  /** Health, version and discovery; `false` when the path is none of them. */
  private serveStatic(path: string, response: ServerResponse): boolean {
    const { registry } = this.parts;
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      sendText(response, 200, 'ok');
      return true;
    }
    if (path === '/') return reply(response, rootPaths(registry));
    if (path === '/version') return reply(response, SERVER_VERSION);
    if (path === '/api') return reply(response, apiVersions(this.address));
    if (path === '/api/v1') return reply(response, apiResourceList(registry, '', 'v1'));
    if (path === '/apis') return reply(response, apiGroupList(registry));
    const groupMatch = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (groupMatch) {
      const [, group, version] = groupMatch;
      if (version === undefined) {
        const document = apiGroup(registry, group!);
        if (!document) throw pathNotFound();
        return reply(response, document);
      }
      if (!registry.hasGroupVersion(group!, version)) throw pathNotFound();
      return reply(response, apiResourceList(registry, group!, version));
    }
    return false;
  }
}

function reply(response: ServerResponse, body: JsonObject): true {
  sendJson(response, 200, body);
  return true;
}
