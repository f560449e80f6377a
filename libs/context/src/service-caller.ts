/**
 * apiCall `service`: an HTTP(S) call to a URL the policy names, through the guarded egress client:
 * the host is resolved once and refused when any address is in the block list (loopback,
 * link-local and cloud metadata by default), the connection goes to the checked address, no
 * redirect is followed (a 3xx is an error), and the call has one deadline and a body cap.
 */
import type { APICall } from '@edict/engine';
import { type JsonValue, errorMessage } from '@edict/foundation';
import { EgressRefusedError, EgressResponseTooLargeError, EgressTimeoutError, type EgressClient } from '@edict/egress';
import {
  apiCallBody,
  apiCallMethod,
  ApiCallError,
  callTimeout,
  timeoutReason,
  type ApiCallLimits,
} from './api-call-request';

/** Headers a policy may not set: they belong to the connection, not to the request. */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADERS = 32;

export class ServiceCaller {
  constructor(
    private readonly egress: Pick<EgressClient, 'request'>,
    private readonly limits: ApiCallLimits,
  ) {}

  /** `shareMs`: the most this call may take of its review's remaining time. */
  async call(call: APICall, shareMs?: number): Promise<JsonValue> {
    const service = call.service;
    const url = service?.url ?? '';
    if (typeof url !== 'string' || url === '') throw new ApiCallError('apiCall service.url is empty');
    const method = apiCallMethod(call);
    const body = apiCallBody(call);
    const headers = requestHeaders(service?.headers, body !== undefined);
    const timeoutMs = callTimeout(this.limits, shareMs);
    let response;
    try {
      response = await this.egress.request(url, {
        method,
        headers,
        body,
        ...(service?.caBundle ? { ca: service.caBundle } : {}),
        timeoutMs,
        maxResponseBytes: this.limits.maxResponseBytes,
        maxRedirects: 0,
      });
    } catch (error) {
      throw new ApiCallError(`service call ${method} ${shown(url)} failed: ${reason(error, this.limits, timeoutMs)}`, {
        cause: error,
      });
    }
    const text = response.body.toString('utf8');
    if (response.status < 200 || response.status > 299) {
      throw new ApiCallError(`service call ${method} ${response.url} answered HTTP ${response.status}: ${clip(text)}`);
    }
    try {
      return JSON.parse(text) as JsonValue;
    } catch (error) {
      throw new ApiCallError(
        `service call ${method} ${response.url} answered something that is not JSON: ${(error as Error).message}`,
      );
    }
  }
}

/**
 * The headers a policy asks for, checked (names, no line breaks, none of the connection's own, at
 * most 32); `where` names them in errors (`apiCall service.headers`, `http.Get headers`).
 */
export function requestHeaders(
  headers: readonly { key: string; value: string }[] | undefined,
  hasBody: boolean,
  where = 'apiCall service.headers',
): Record<string, string> {
  const result: Record<string, string> = { accept: 'application/json' };
  if ((headers?.length ?? 0) > MAX_HEADERS) throw new ApiCallError(`${where}: at most ${MAX_HEADERS}`);
  for (const header of headers ?? []) {
    const name = String(header?.key ?? '');
    const value = String(header?.value ?? '');
    if (!HEADER_NAME.test(name)) throw new ApiCallError(`${where}: invalid header name ${JSON.stringify(name)}`);
    if (/[\r\n\0]/.test(value)) throw new ApiCallError(`${where}: the value of ${name} holds a line break`);
    if (CONNECTION_HEADERS.has(name.toLowerCase())) {
      throw new ApiCallError(`${where}: ${name} is set by the connection, not by the policy`);
    }
    result[name.toLowerCase()] = value;
  }
  if (hasBody && result['content-type'] === undefined) result['content-type'] = 'application/json';
  return result;
}

/** Why an egress call failed, in the operator's terms (the setting that decided it). */
export function reason(error: unknown, limits: ApiCallLimits, timeoutMs: number): string {
  // The error's reason leaves a host name's resolved address out; the range is the operator's setting.
  if (error instanceof EgressRefusedError) return `refused: ${error.reason} (EDICT_EGRESS_BLOCKED_CIDRS)`;
  if (error instanceof EgressTimeoutError) return timeoutReason(limits, timeoutMs);
  if (error instanceof EgressResponseTooLargeError) {
    return `the answer is longer than the ${limits.maxResponseBytes} bytes allowed (EDICT_MAX_API_CALL_RESPONSE_BYTES)`;
  }
  return errorMessage(error);
}

/** A URL fit for an error message: no credentials, at most 300 characters. */
export function shown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return clip(parsed.href);
  } catch {
    return JSON.stringify(clip(url));
  }
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
