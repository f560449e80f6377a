/** What the two apiCall callers (API server, service) share: limits, the method and the POST body. */
import type { APICall } from '@edict/engine';
import type { JsonValue } from '@edict/foundation';

export interface ApiCallLimits {
  /** Deadline of one call, body included. */
  readonly timeoutMs: number;
  /** Longest answer body read; a longer one is cut off. */
  readonly maxResponseBytes: number;
}

/** One call's deadline: the controller's limit, or less when the review has less time left (`shareMs`). */
export function callTimeout(limits: ApiCallLimits, shareMs: number | undefined): number {
  return shareMs === undefined ? limits.timeoutMs : Math.max(1, Math.min(limits.timeoutMs, shareMs));
}

/** Why a call that timed out had `timeoutMs`: the controller's limit, or the review's time. */
export function timeoutReason(limits: ApiCallLimits, timeoutMs: number): string {
  const why = timeoutMs < limits.timeoutMs ? "its share of the review's remaining time" : 'EDICT_API_CALL_TIMEOUT_MS';
  return `no complete answer within ${timeoutMs} ms (${why})`;
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
