/**
 * A small HTTP client over a `KubeConfig` (auth, CA, client certs and proxies come from
 * client-node's `applyToHTTPSOptions`), returning plain JSON. We use it instead of the generated
 * clients where we need raw JSON (their deserializer turns timestamps into `Date`s, so list items
 * would differ from watch events) and full control of timeouts and aborts (watches).
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { NO_TRACING, type Tracing } from '@edict/foundation';
import { KubeApiError } from '../errors/kube-api-error';
import { kubeSpan } from './kube-span';

export type QueryValue = string | number | boolean | undefined;

export interface KubeHttpRequest {
  readonly method?: string;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/configmaps`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** The Accept header (default `application/json`), e.g. to ask for PartialObjectMetadata. */
  readonly accept?: string;
  /** Deadline for the answer's headers (default 60 s); 0 disables it. */
  readonly timeoutMs?: number;
  /** Aborts the request (it then rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * `json` only: the longest answer body accepted, counted while it streams; a longer one is cut
   * off and rejects with `KubeResponseTooLargeError` (default: no limit).
   */
  readonly maxResponseBytes?: number;
  /** `json` only: deadline for the whole call, body included (default: none beyond `timeoutMs`). */
  readonly totalTimeoutMs?: number;
}

export interface KubeStreamRequest extends KubeHttpRequest {
  /** Ends the stream with an error when no data arrives for this long (0: never). */
  readonly idleTimeoutMs?: number;
}

/** An open streaming response: `closed` settles when it ends (rejects on errors). */
export interface KubeStream {
  readonly closed: Promise<void>;
  abort(): void;
}

export class KubeTimeoutError extends Error {
  override readonly name = 'KubeTimeoutError';
}

export class KubeResponseTooLargeError extends Error {
  override readonly name = 'KubeResponseTooLargeError';
  constructor(
    readonly path: string,
    readonly limitBytes: number,
  ) {
    super(`the answer to ${path} is longer than ${limitBytes} bytes`);
  }
}

/** How long the kubeconfig's connection settings (server, TLS, credentials) are reused. */
const CONNECTION_REUSE_MS = 1000;

/** The kubeconfig's settings as one request needs them; see `KubeHttpClient.connection`. */
interface Connection {
  readonly cluster: unknown;
  readonly user: unknown;
  readonly expiresAt: number;
  /** The server URL without trailing slashes. */
  readonly server: string;
  /** Through client-node's proxy agent: its options are passed whole, with a parsed URL. */
  readonly proxied: boolean;
  readonly options: RequestOptions;
  /** Headers from the kubeconfig (Authorization, Impersonate-User). */
  readonly headers: Readonly<Record<string, string>>;
  readonly send: typeof httpRequest;
  /** Host, port, agent and basic auth of every request that goes straight to the server. */
  readonly target: RequestOptions;
  /** The server URL's path ('' for none), before every request path. */
  readonly basePath: string;
}

/** Characters a URL path keeps as they are: a path made only of them needs no parsing. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The request's path and query string, as `new URL` would give them, parsed only when it must. */
function targetPath(connection: Connection, req: KubeHttpRequest): string {
  const path = connection.basePath + req.path;
  const query = queryString(req.query);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return query === '' ? path : path + '?' + query;
  const url = requestUrl(connection.server, req);
  return url.pathname + url.search;
}

function queryString(query: KubeHttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) params.set(key, String(value));
  }
  return params.toString();
}

function requestUrl(server: string, req: KubeHttpRequest): URL {
  const url = new URL(server + req.path);
  for (const [key, value] of Object.entries(req.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

function urlAuth(url: URL): string {
  return `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
}

/** Different TLS settings at once are rare (a rotated client certificate); keep a few agents. */
const MAX_AGENTS = 4;

export class KubeHttpClient {
  /**
   * Keep-alive agents by TLS settings. client-node builds a fresh agent on every call, which
   * would open a new connection (and TLS handshake) per request.
   */
  private readonly agents = new Map<string, HttpAgent>();
  private cachedConnection: Connection | undefined;
  private readonly now: () => number;
  /** Told of every request sent (its method, path and query), e.g. to count them (kyverno_client_queries_total). */
  onRequest?: (method: string, path: string, query: KubeHttpRequest['query']) => void;

  private readonly tracing: Tracing;

  constructor(
    readonly config: KubeConfig,
    options: { now?: () => number; tracing?: Tracing } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.tracing = options.tracing ?? NO_TRACING;
  }

  /** `send` in a span of its own when the caller is in one (Kyverno's traced clients). */
  private traced<R>(req: Pick<KubeHttpRequest, 'method' | 'path'>, send: () => Promise<R>): Promise<R> {
    if (!this.tracing.enabled || !this.tracing.inSpan()) return send();
    const { name, attributes } = kubeSpan(req.method ?? 'GET', req.path);
    return this.tracing.span(name, attributes, send);
  }

  /** The current cluster's server URL. */
  get server(): string {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    return cluster.server.replace(/\/+$/, '');
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw `KubeApiError`. */
  json<T = unknown>(req: KubeHttpRequest): Promise<T> {
    return this.traced(req, () => this.jsonUntraced<T>(req));
  }

  private async jsonUntraced<T>(req: KubeHttpRequest): Promise<T> {
    const { status, text } = req.totalTimeoutMs ? await this.sendWithin(req, req.totalTimeoutMs) : await this.send(req);
    if (status < 200 || status > 299) throw KubeApiError.fromResponse(status, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Sends a request whose successful answer is not needed (a write nobody reads back): its body is
   * skipped as it arrives instead of buffered and parsed. Non-2xx answers throw `KubeApiError`.
   */
  call(req: Omit<KubeHttpRequest, 'maxResponseBytes' | 'totalTimeoutMs'>): Promise<void> {
    return this.traced(req, () => this.callUntraced(req));
  }

  private async callUntraced(req: Omit<KubeHttpRequest, 'maxResponseBytes' | 'totalTimeoutMs'>): Promise<void> {
    const { request, response } = await this.open(req, req.timeoutMs ?? 60_000);
    const status = response.statusCode ?? 500;
    if (status < 200 || status > 299) {
      const text = await readAll(response).catch((error: unknown) => {
        request.destroy();
        throw error;
      });
      throw KubeApiError.fromResponse(status, text);
    }
    await new Promise<void>((resolve, reject) => {
      response.on('end', resolve);
      response.on('error', reject);
      response.on('aborted', () => reject(new Error('the response was cut')));
      response.resume();
    });
  }

  /**
   * Opens a streaming GET (a watch) and resolves once a 2xx answer's headers arrive, calling
   * `onLine` for each newline-terminated line. Non-2xx answers reject with `KubeApiError`.
   */
  async stream(req: KubeStreamRequest, onLine: (line: string) => void): Promise<KubeStream> {
    const { request, response } = await this.open(req, req.timeoutMs ?? 60_000);
    if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) {
      const text = await readAll(response);
      throw KubeApiError.fromResponse(response.statusCode ?? 500, text);
    }
    let idleTimer: NodeJS.Timeout | undefined;
    let aborted = false;
    const idleMs = req.idleTimeoutMs ?? 0;
    const closed = new Promise<void>((resolve, reject) => {
      const armIdle = (): void => {
        if (idleMs <= 0) return;
        clearTimeout(idleTimer);
        idleTimer = setTimeout(
          () => request.destroy(new KubeTimeoutError(`no data on ${req.path} for ${idleMs} ms`)),
          idleMs,
        );
      };
      let buffered = '';
      response.setEncoding('utf8');
      armIdle();
      response.on('data', (chunk: string) => {
        armIdle();
        buffered += chunk;
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line !== '') onLine(line);
          newline = buffered.indexOf('\n');
        }
      });
      const finish = (error?: Error): void => {
        clearTimeout(idleTimer);
        if (error && !aborted) reject(error);
        else resolve();
      };
      response.on('end', () => finish());
      response.on('error', finish);
      response.on('aborted', () => finish(new Error(`the stream on ${req.path} was cut`)));
      request.on('error', finish);
      response.on('close', () =>
        finish(response.complete ? undefined : new Error(`the stream on ${req.path} was cut`)),
      );
    });
    return {
      closed,
      abort() {
        aborted = true;
        request.destroy();
      },
    };
  }

  private async send(req: KubeHttpRequest): Promise<{ status: number; text: string }> {
    const { request, response } = await this.open(req, req.timeoutMs ?? 60_000);
    const limit = req.maxResponseBytes;
    const declared = Number(response.headers['content-length']);
    if (limit !== undefined && Number.isFinite(declared) && declared > limit) {
      request.destroy();
      throw new KubeResponseTooLargeError(req.path, limit);
    }
    try {
      return { status: response.statusCode ?? 500, text: await readAll(response, limit) };
    } catch (error) {
      request.destroy();
      throw error instanceof KubeResponseTooLargeError ? new KubeResponseTooLargeError(req.path, limit!) : error;
    }
  }

  /** `send` under one deadline for headers and body. */
  private async sendWithin(req: KubeHttpRequest, totalMs: number): Promise<{ status: number; text: string }> {
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new KubeTimeoutError(`${req.method ?? 'GET'} ${req.path}: not done in ${totalMs} ms`)),
      totalMs,
    );
    const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
    try {
      return await this.send(
        Object.assign({}, req, { signal, timeoutMs: Math.min(req.timeoutMs ?? totalMs, totalMs) }),
      );
    } catch (error) {
      throw deadline.signal.aborted ? deadline.signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends the request; resolves with the response once its headers arrive. */
  private async open(
    req: KubeHttpRequest,
    timeoutMs: number,
  ): Promise<{ request: ClientRequest; response: IncomingMessage }> {
    const connection = await this.connection();
    this.onRequest?.(req.method ?? 'GET', req.path, req.query);
    // Options and headers are assigned, not spread: V8 adds the keys a spread clone lacks the slow
    // way (see copyGaining in the engine), 4 µs a request here.
    const headers: Record<string, string> = Object.assign({}, connection.headers);
    headers['Accept'] = req.accept ?? 'application/json';
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const method = req.method ?? 'GET';
    return new Promise((resolve, reject) => {
      const onResponse = (response: IncomingMessage): void => {
        clearTimeout(timer);
        resolve({ request, response });
      };
      const request = connection.proxied
        ? connection.send(
            requestUrl(connection.server, req),
            Object.assign({}, connection.options, { method, headers }),
            onResponse,
          )
        : connection.send(
            Object.assign({}, connection.target, { path: targetPath(connection, req), method, headers }),
            onResponse,
          );
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () => request.destroy(new KubeTimeoutError(`${method} ${req.path}: no answer in ${timeoutMs} ms`)),
              timeoutMs,
            )
          : undefined;
      const onAbort = (): void => {
        request.destroy(abortReason(req.signal!));
      };
      if (req.signal?.aborted) onAbort();
      req.signal?.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => req.signal?.removeEventListener('abort', onAbort));
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.end(payload);
    });
  }

  /**
   * Where and how to send, from the kubeconfig: client-node's `applyToHTTPSOptions` decodes (or
   * reads from files) the CA and client certificate and builds an agent on every call, so its
   * result is kept for a second, and at once replaced when the current cluster or user changes.
   * Credentials that rotate (token files, exec plugins, certificate files) are thus read at most
   * a second late; client-node's own token file reader rereads only every minute.
   */
  private async connection(): Promise<Connection> {
    const cluster = this.config.getCurrentCluster();
    const user = this.config.getCurrentUser();
    const cached = this.cachedConnection;
    if (cached && cached.cluster === cluster && cached.user === user && this.now() < cached.expiresAt) return cached;
    const server = this.server;
    const options: RequestOptions & Record<string, unknown> = { headers: {} };
    await this.config.applyToHTTPSOptions(options);
    const url = new URL(server);
    const proxied = Boolean(cluster?.proxyUrl);
    const agent = this.agentFor(url.protocol, options);
    const connection: Connection = {
      cluster,
      user,
      expiresAt: this.now() + CONNECTION_REUSE_MS,
      server,
      proxied,
      options: { ...options, agent },
      headers: { ...(options.headers as Record<string, string>) },
      send: url.protocol === 'https:' ? httpsRequest : httpRequest,
      // The agent holds the TLS settings (createSocket merges its options into each connection's).
      target: {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port,
        agent,
        ...(options.auth ? { auth: options.auth } : url.username ? { auth: urlAuth(url) } : {}),
      },
      basePath: url.pathname === '/' ? '' : url.pathname,
    };
    this.cachedConnection = connection;
    return connection;
  }

  /** A shared keep-alive agent for these TLS settings; client-node's own when a proxy is configured. */
  private agentFor(protocol: string, options: RequestOptions & Record<string, unknown>): RequestOptions['agent'] {
    if (this.config.getCurrentCluster()?.proxyUrl) return options.agent;
    const tls = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      servername: options.servername,
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    } as Record<string, unknown>;
    const key = [protocol, ...Object.values(tls).map((value) => String(value ?? ''))].join('\u0000');
    let agent = this.agents.get(key);
    if (!agent) {
      if (this.agents.size >= MAX_AGENTS) {
        const [oldest, retired] = this.agents.entries().next().value as [string, HttpAgent];
        this.agents.delete(oldest);
        retired.destroy();
      }
      agent = protocol === 'https:' ? new HttpsAgent({ ...tls, keepAlive: true }) : new HttpAgent({ keepAlive: true });
      this.agents.set(key, agent);
    }
    return agent;
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the request was aborted');
}

function readAll(response: IncomingMessage, limit?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (limit !== undefined && size > limit) {
        reject(new KubeResponseTooLargeError('', limit));
        response.destroy();
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the response was cut')));
  });
}
