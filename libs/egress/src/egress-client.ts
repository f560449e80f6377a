/**
 * Outbound HTTP(S) to targets that a policy or a request controls (apiCall service URLs, image
 * registries). Every connection goes to an address that was checked against the block list: host
 * names are resolved by our own `lookup`, which refuses when ANY address is blocked and otherwise
 * hands the checked addresses to the socket, so nothing is resolved twice (no DNS-rebinding gap);
 * IP literals, which Node connects to without a lookup, are checked before the request. A call has
 * one deadline for everything (connect, headers, body, redirects) and a body cap counted while the
 * body streams. Redirects are not followed unless asked for; each followed hop is checked again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AddressPolicy } from './address-policy';
import {
  EgressError,
  EgressRedirectError,
  EgressRefusedError,
  EgressRequestError,
  EgressResponseTooLargeError,
  EgressTimeoutError,
} from './egress-errors';
import { resolveEgressOptions, type EgressOptions, type ResolvedEgressOptions } from './egress.options';
import { errorMessage } from '@edict/foundation';

export interface EgressRequest {
  /** Default GET. */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** PEM CA bundle for HTTPS; it replaces the system roots, as Kyverno's `caBundle` does. */
  readonly ca?: string | Uint8Array;
  /**
   * Accept any server certificate (Kyverno's `allowInsecureRegistry`). The block list still
   * applies; only the peer's identity goes unchecked.
   */
  readonly insecureSkipTlsVerify?: boolean;
  /** Total time for the call (default: the client's). */
  readonly timeoutMs?: number;
  /** Body cap in bytes (default: the client's). */
  readonly maxResponseBytes?: number;
  /** Redirects to follow, each re-checked (default 0: a 3xx answer is returned as it is). */
  readonly maxRedirects?: number;
  readonly signal?: AbortSignal;
}

export interface EgressResponse {
  readonly status: number;
  /** Lower-case names, as Node gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The URL that answered (the last hop), without user info. */
  readonly url: string;
}

interface Hop {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array;
}

/** node:dns `lookup` with `all: true`; replaceable so tests can script what a name resolves to. */
export type ResolveAll = (
  hostname: string,
  options: { all: true; family?: number | string; hints?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;
/** Headers that carry credentials for one origin only. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

export class EgressClient {
  readonly policy: AddressPolicy;
  readonly options: ResolvedEgressOptions;
  // Own agents: a pooled socket is reused only by calls checked against this client's block list.
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 32 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 32 });

  /** Throws EgressConfigError naming each bad option or block list entry. */
  constructor(
    options: Partial<EgressOptions> = {},
    private readonly resolveAll: ResolveAll = dnsLookup as unknown as ResolveAll,
  ) {
    this.options = resolveEgressOptions(options);
    this.policy = new AddressPolicy(this.options.blockedCidrs);
  }

  /** Sends one request; rejects with an EgressError subclass (refused, timeout, too large, redirect, request). */
  async request(target: string | URL, init: EgressRequest = {}): Promise<EgressResponse> {
    const first = parseTarget(target);
    const timeoutMs = positiveInt(init.timeoutMs, this.options.timeoutMs, 'timeoutMs', first);
    const limit = positiveInt(init.maxResponseBytes, this.options.maxResponseBytes, 'maxResponseBytes', first);
    const maxRedirects = init.maxRedirects ?? 0;
    if (!Number.isInteger(maxRedirects) || maxRedirects < 0 || maxRedirects > MAX_REDIRECTS) {
      throw new EgressRequestError(`maxRedirects must be an integer 0-${MAX_REDIRECTS}`, display(first));
    }
    const method = (init.method ?? 'GET').toUpperCase();
    if (!/^[A-Z]{1,16}$/.test(method)) {
      throw new EgressRequestError(`invalid HTTP method ${JSON.stringify(init.method)}`, display(first));
    }

    let hop: Hop = { url: first, method, headers: { ...init.headers }, body: init.body };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new EgressTimeoutError(timeoutMs, display(hop.url))), timeoutMs);
    const onCallerAbort = () =>
      deadline.abort(new EgressRequestError(`aborted calling ${display(hop.url)}`, display(hop.url)));
    init.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (init.signal?.aborted) onCallerAbort();
    try {
      for (let redirects = 0; ; redirects++) {
        const response = await this.send(hop, init, limit, deadline.signal);
        const location = response.headers.location;
        if (maxRedirects === 0 || !REDIRECTS.has(response.status) || !location) return response;
        if (redirects >= maxRedirects) {
          throw new EgressRedirectError(
            `stopped after ${maxRedirects} redirect(s) calling ${display(first)}`,
            display(first),
          );
        }
        hop = nextHop(hop, response.status, location);
      }
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Closes pooled connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(hop: Hop, init: EgressRequest, limit: number, signal: AbortSignal) {
    return new Promise<EgressResponse>((resolve, reject) => {
      const shown = display(hop.url);
      if (signal.aborted) return reject(signal.reason);
      const host = hostOf(hop.url);
      if (isIP(host) !== 0) {
        const range = this.policy.blockedRange(host);
        if (range) return reject(new EgressRefusedError(host, range, shown));
      }

      let request: ClientRequest | undefined;
      let response: IncomingMessage | undefined;
      let settled = false;
      const finish = (error: unknown, result?: EgressResponse) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error === undefined) return resolve(result!);
        response?.destroy();
        request?.destroy();
        reject(error instanceof EgressError ? error : failure(error, shown));
      };
      const onAbort = () => finish(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });

      const headers = { ...hop.headers };
      if (hop.body !== undefined && !hasHeader(headers, 'content-length')) {
        headers['content-length'] = String(Buffer.byteLength(hop.body));
      }
      const options: RequestOptions = {
        method: hop.method,
        headers,
        agent: hop.url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        lookup: this.guardedLookup(shown),
      };
      if (hop.url.protocol === 'https:') {
        if (init.ca !== undefined) options.ca = typeof init.ca === 'string' ? init.ca : Buffer.from(init.ca);
        if (init.insecureSkipTlsVerify) options.rejectUnauthorized = false;
      }
      try {
        request = (hop.url.protocol === 'https:' ? httpsRequest : httpRequest)(hop.url, options);
      } catch (error) {
        return finish(error);
      }
      request.on('error', (error) => finish(error));
      request.on('response', (res) => {
        response = res;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) return finish(new EgressResponseTooLargeError(limit, shown));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) return finish(new EgressResponseTooLargeError(limit, shown));
          chunks.push(chunk);
        });
        res.on('error', (error) => finish(error));
        res.on('end', () =>
          finish(undefined, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            url: shown,
          }),
        );
      });
      request.end(hop.body);
    });
  }

  /** Resolves every address of a host, refuses if any is blocked, and connects only to those. */
  private guardedLookup(shown: string): LookupFunction {
    return (hostname, options, callback) => {
      this.resolveAll(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        if (addresses.length === 0) {
          return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        }
        for (const { address } of addresses) {
          const range = this.policy.blockedRange(address);
          if (range) return callback(new EgressRefusedError(address, range, shown, hostname), '', 0);
        }
        if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }
}

function parseTarget(target: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(target));
  } catch {
    throw new EgressRequestError(
      `invalid URL ${JSON.stringify(String(target).slice(0, 200))}`,
      String(target).slice(0, 200),
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressRequestError(
      `unsupported protocol ${url.protocol} in ${display(url)} (http or https only)`,
      display(url),
    );
  }
  return url;
}

/** The next request after a redirect (RFC 9110 §15.4): GET for 303 and a POST's 301/302. */
function nextHop(hop: Hop, status: number, location: string): Hop {
  const from = display(hop.url);
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    throw new EgressRedirectError(
      `invalid redirect Location ${JSON.stringify(location.slice(0, 200))} from ${from}`,
      from,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressRedirectError(`refused redirect from ${from} to ${url.protocol} (http or https only)`, from);
  }
  if (hop.url.protocol === 'https:' && url.protocol === 'http:') {
    throw new EgressRedirectError(`refused redirect from ${from} to plain HTTP ${display(url)}`, from);
  }
  const toGet =
    (status === 303 && hop.method !== 'HEAD') || ((status === 301 || status === 302) && hop.method === 'POST');
  const sameOrigin = url.origin === hop.url.origin;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(hop.headers)) {
    const lower = name.toLowerCase();
    if (!sameOrigin && ORIGIN_BOUND_HEADERS.has(lower)) continue;
    if (toGet && (lower === 'content-type' || lower === 'content-length')) continue;
    headers[name] = value;
  }
  return { url, method: toGet ? 'GET' : hop.method, headers, body: toGet ? undefined : hop.body };
}

/** The URL as messages show it: no user info, bounded length. */
export function display(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  const text = copy.href;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function positiveInt(value: number | undefined, fallback: number, field: string, url: URL): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen <= 0) {
    throw new EgressRequestError(`${field} must be a positive integer, got ${String(value)}`, display(url));
  }
  return chosen;
}

function failure(error: unknown, shown: string): EgressRequestError {
  const reason = errorMessage(error);
  return new EgressRequestError(`calling ${shown} failed: ${reason}`, shown, { cause: error });
}
