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
import { KubeApiError } from '../errors/kube-api-error';

export type QueryValue = string | number | boolean | undefined;

export interface KubeHttpRequest {
  readonly method?: string;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/configmaps`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly contentType?: string;
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

/** Different TLS settings at once are rare (a rotated client certificate); keep a few agents. */
const MAX_AGENTS = 4;

export class KubeHttpClient {
  /**
   * Keep-alive agents by TLS settings. client-node builds a fresh agent on every call, which
   * would open a new connection (and TLS handshake) per request.
   */
  private readonly agents = new Map<string, HttpAgent>();

  constructor(readonly config: KubeConfig) {}

  /** The current cluster's server URL. */
  get server(): string {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    return cluster.server.replace(/\/+$/, '');
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw `KubeApiError`. */
  async json<T = unknown>(req: KubeHttpRequest): Promise<T> {
    const { status, text } = req.totalTimeoutMs ? await this.sendWithin(req, req.totalTimeoutMs) : await this.send(req);
    if (status < 200 || status > 299) throw KubeApiError.fromResponse(status, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Sends a request whose successful answer is not needed (a write nobody reads back): its body is
   * skipped as it arrives instead of buffered and parsed. Non-2xx answers throw `KubeApiError`.
   */
  async call(req: Omit<KubeHttpRequest, 'maxResponseBytes' | 'totalTimeoutMs'>): Promise<void> {
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
      return await this.send({ ...req, signal, timeoutMs: Math.min(req.timeoutMs ?? totalMs, totalMs) });
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
    const url = new URL(this.server + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const options: RequestOptions & Record<string, unknown> = { headers: {} };
    await this.config.applyToHTTPSOptions(options);
    const headers = { ...(options.headers as Record<string, string>), Accept: 'application/json' } as Record<
      string,
      string
    >;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent = this.agentFor(url.protocol, options);
    return new Promise((resolve, reject) => {
      const request = send(url, { ...options, agent, method: req.method ?? 'GET', headers }, (response) => {
        clearTimeout(timer);
        resolve({ request, response });
      });
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () =>
                request.destroy(
                  new KubeTimeoutError(`${req.method ?? 'GET'} ${req.path}: no answer in ${timeoutMs} ms`),
                ),
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
