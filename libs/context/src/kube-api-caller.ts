/**
 * apiCall `urlPath`: a GET or POST to the API server with the controller's own identity, answer
 * size capped while it streams and one deadline for the whole call. Who may call which path
 * (policy-scope.ts) is checked by the caller; this checks the path is a plain API server path.
 */
import type { APICall } from '@edict/engine';
import { type JsonValue, errorMessage } from '@edict/foundation';
import { KubeApiError, KubeResponseTooLargeError, KubeTimeoutError, type KubeHttpRequest } from '@edict/kube';
import {
  apiCallBody,
  apiCallMethod,
  ApiCallError,
  callTimeout,
  timeoutReason,
  type ApiCallLimits,
} from './api-call-request';
import { apiPathNamespace } from './policy-scope';

/** Sends one request to the API server and parses its JSON answer (KubeHttpClient.json fits). */
export type KubeJsonSender = (request: KubeHttpRequest) => Promise<unknown>;

export class KubeApiCaller {
  constructor(
    private readonly send: KubeJsonSender,
    private readonly limits: ApiCallLimits,
  ) {}

  /** `shareMs`: the most this call may take of its review's remaining time. */
  async call(call: APICall, shareMs?: number): Promise<JsonValue> {
    const path = call.urlPath ?? '';
    apiPathNamespace(path);
    const method = apiCallMethod(call);
    const timeoutMs = callTimeout(this.limits, shareMs);
    try {
      const answer = await this.send({
        method,
        path,
        body: apiCallBody(call),
        timeoutMs,
        totalTimeoutMs: timeoutMs,
        maxResponseBytes: this.limits.maxResponseBytes,
      });
      return (answer ?? null) as JsonValue;
    } catch (error) {
      throw new ApiCallError(`failed to ${method} ${path}: ${reason(error, this.limits, timeoutMs)}`, { cause: error });
    }
  }
}

function reason(error: unknown, limits: ApiCallLimits, timeoutMs: number): string {
  if (error instanceof KubeResponseTooLargeError) {
    return `the answer is longer than the ${limits.maxResponseBytes} bytes allowed (EDICT_MAX_API_CALL_RESPONSE_BYTES)`;
  }
  if (error instanceof KubeTimeoutError) return timeoutReason(limits, timeoutMs);
  if (error instanceof KubeApiError) {
    const denied = error.code === 401 || error.code === 403 ? 'permission denied: ' : '';
    const message = error.message.length > 500 ? `${error.message.slice(0, 500)}…` : error.message;
    return `${denied}${message}`;
  }
  if (error instanceof SyntaxError) return `the answer is not JSON: ${error.message}`;
  return errorMessage(error);
}
