/**
 * `http.Get/Post/Put` of Kyverno's CEL policies through the guarded egress client, as apiCall
 * `service` goes: blocked addresses refused (checked again on each redirect, up to Go's 10), blocked
 * host names and, when configured, an allowlist of URL prefixes (cel-http-url-policy.ts), the
 * policy's headers checked, one deadline (the controller's, or less when the evaluation has less
 * left), and a body cap. Any HTTP status is an answer (the expression reads `statusCode`).
 */
import type { CelHttpPort, CelHttpRequest, CelHttpResponse, CelPortCall } from '@edict/cel';
import type { EgressClient } from '@edict/egress';
import { ApiCallError, type ApiCallLimits } from './api-call-request';
import { CelHttpUrlPolicy } from './cel-http-url-policy';
import { reason, requestHeaders, shown } from './service-caller';

const GO_MAX_REDIRECTS = 10;

export class EgressCelHttpPort implements CelHttpPort {
  constructor(
    private readonly egress: Pick<EgressClient, 'request'>,
    private readonly limits: ApiCallLimits,
    private readonly urls: CelHttpUrlPolicy = new CelHttpUrlPolicy(),
  ) {}

  async send(request: CelHttpRequest, call: CelPortCall): Promise<CelHttpResponse> {
    const { method, url } = request;
    if (!/^https?:\/\//i.test(url)) throw new ApiCallError(`${method} ${shown(url)}: only http and https URLs`);
    const refusal = this.urls.refusal(url);
    if (refusal) throw new ApiCallError(`${method} ${shown(url)}: the URL is not permitted: ${refusal}`);
    const headers = requestHeaders(
      Object.entries(request.headers).map(([key, value]) => ({ key, value })),
      request.body !== undefined,
      `http.${method} headers`,
    );
    const timeoutMs = this.limits.timeoutMs;
    const maxResponseBytes = Math.min(this.limits.maxResponseBytes, call.maxResponseBytes);
    let response;
    try {
      response = await this.egress.request(url, {
        method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.caBundle ? { ca: request.caBundle } : {}),
        timeoutMs,
        maxResponseBytes,
        maxRedirects: GO_MAX_REDIRECTS,
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      throw new ApiCallError(
        `${method} ${shown(url)}: ${reason(error, { ...this.limits, maxResponseBytes }, timeoutMs)}`,
        { cause: error },
      );
    }
    return { statusCode: response.status, body: response.body.toString('utf8') };
  }
}
