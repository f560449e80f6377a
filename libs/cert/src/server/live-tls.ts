/**
 * TLS servers that follow TlsMaterial without a restart. New connections get the current
 * certificate two ways: `setSecureContext` replaces the default context (clients that send no SNI,
 * e.g. to an IP), and `SNICallback` hands out the current context (clients that do). Connections
 * already open keep the context they were set up with.
 */
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions } from 'node:https';
import type { RequestListener } from 'node:http';
import { createSecureContext, type SecureContext, type Server as TlsServer, type TlsOptions } from 'node:tls';
import type { TlsMaterial, TlsSnapshot } from '../material/tls-material';
import { SERVING_TLS_OPTIONS } from '@edict/config';

/** Live TLS options for a server about to be created (e.g. Fastify's `https` option). */
export interface LiveTlsOptions {
  readonly key: string;
  readonly cert: string;
  readonly SNICallback: (servername: string, callback: (error: Error | null, context?: SecureContext) => void) => void;
}

/**
 * Tracks the current snapshot and its SecureContext; `bind` keeps a created server in step. Every
 * context carries {@link SERVING_TLS_OPTIONS} unless `extra` overrides them.
 */
export class LiveSecureContext {
  private snapshot: TlsSnapshot;
  private context: SecureContext;
  private readonly servers = new Set<TlsServer>();
  private readonly unsubscribe: () => void;

  private readonly extra: Omit<TlsOptions, 'key' | 'cert'>;

  constructor(material: TlsMaterial, extra: Omit<TlsOptions, 'key' | 'cert'> = {}) {
    this.extra = { ...SERVING_TLS_OPTIONS, ...extra };
    const first = material.current();
    if (!first) throw new Error('TLS material is not ready yet: await material.ready() first');
    this.snapshot = first;
    this.context = this.build(first);
    this.unsubscribe = material.onChange((snapshot) => this.update(snapshot));
  }

  /** Options to create a server with; its SNICallback always answers the current context. */
  options(): LiveTlsOptions {
    return {
      key: this.snapshot.keyPem,
      cert: this.snapshot.certChainPem,
      SNICallback: (_servername, callback) => callback(null, this.context),
    };
  }

  current(): TlsSnapshot {
    return this.snapshot;
  }

  /** Keeps the server's default context current; stops when the server closes. */
  bind<S extends TlsServer>(server: S): S {
    this.servers.add(server);
    server.setSecureContext({ ...this.extra, key: this.snapshot.keyPem, cert: this.snapshot.certChainPem });
    server.once('close', () => this.servers.delete(server));
    return server;
  }

  close(): void {
    this.unsubscribe();
    this.servers.clear();
  }

  private build(snapshot: TlsSnapshot): SecureContext {
    return createSecureContext({ ...this.extra, key: snapshot.keyPem, cert: snapshot.certChainPem });
  }

  private update(snapshot: TlsSnapshot): void {
    if (snapshot.version === this.snapshot.version) return;
    // Build first: a bad snapshot leaves the previous certificate in service.
    const context = this.build(snapshot);
    this.snapshot = snapshot;
    this.context = context;
    for (const server of this.servers) {
      server.setSecureContext({ ...this.extra, key: snapshot.keyPem, cert: snapshot.certChainPem });
    }
  }
}

/**
 * An `https` server whose certificate follows the material. Await `material.ready()` first.
 * Closing the server stops following.
 */
export function createLiveHttpsServer(
  material: TlsMaterial,
  listener: RequestListener,
  options: Omit<ServerOptions, 'key' | 'cert' | 'SNICallback'> = {},
): HttpsServer {
  const live = new LiveSecureContext(material, options);
  const server = createHttpsServer({ ...options, ...live.options() }, listener);
  live.bind(server);
  server.once('close', () => live.close());
  return server;
}
