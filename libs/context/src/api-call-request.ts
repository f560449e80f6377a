/** What the two apiCall callers (API server, service) share: limits, the method and the POST body. */
import type { APICall, JsonValue } from '@edict/engine';

export interface ApiCallLimits {
  /** Deadline of one call, body included. */
  readonly timeoutMs: number;
  /** Longest answer body read; a longer one is cut off. */
  readonly maxResponseBytes: number;
}

export class ApiCallError extends Error {
  override readonly name = 'ApiCallError';
}

/** GET or POST (Kyverno's only two); anything else is refused. */
export function apiCallMethod(call: APICall): 'GET' | 'POST' {
  const method = String(call.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'POST') {
    throw new ApiCallError(`invalid apiCall method ${JSON.stringify(call.method)}: GET or POST only`);
  }
  return method;
}

/** A POST's JSON body: `data` as an object of its keys (a later key wins), as Kyverno sends it. */
export function apiCallBody(call: APICall): string | undefined {
  if (apiCallMethod(call) !== 'POST') return undefined;
  const body: Record<string, JsonValue> = {};
  for (const item of call.data ?? []) {
    if (typeof item?.key !== 'string') throw new ApiCallError('apiCall data: every item needs a string key');
    body[item.key] = item.value;
  }
  return JSON.stringify(body);
}
