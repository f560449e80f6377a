import type { Environment } from '@marcbachmann/cel-js';
import { goJson, type JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { missingPort, type KyvernoCalls } from './calls';
import type { CelHttpMethod, CelHttpPort, CelHttpResponse } from './ports';
import { celToJson, fromDecodedJson, stringMap } from './values';

export const HTTP_TYPE = 'http.Context';

/** The value of `http`: a port, and the CA bundle `http.Client(caBundle)` chose. */
export class CelHttpContext {
  constructor(
    readonly calls: KyvernoCalls,
    readonly port: CelHttpPort | undefined,
    readonly caBundle?: string,
  ) {}
}

/**
 * Kyverno's http library: `http.Get(url[, headers])`, `http.Post(url, body[, headers])`,
 * `http.Put(url, body[, headers])`, `http.Client(caBundle)`, and their camelCase names (Kyverno
 * 1.18). A JSON object answer comes back with `statusCode` added; any other answer as
 * `{body, statusCode}` (`body` null when it is not JSON).
 */
export function registerHttp(env: Environment): void {
  env.registerType(HTTP_TYPE, CelHttpContext);
  for (const [get, post, put, client] of [
    ['Get', 'Post', 'Put', 'Client'],
    ['get', 'post', 'put', 'client'],
  ] as const) {
    env.registerFunction(`${HTTP_TYPE}.${get}(string): dyn`, (h: CelHttpContext, url: string) =>
      send(h, 'GET', url, undefined, {}),
    );
    env.registerFunction(
      `${HTTP_TYPE}.${get}(string, map<string, string>): dyn`,
      (h: CelHttpContext, url: string, headers: unknown) => send(h, 'GET', url, undefined, headers),
    );
    for (const [name, method] of [
      [post, 'POST'],
      [put, 'PUT'],
    ] as const) {
      env.registerFunction(`${HTTP_TYPE}.${name}(string, dyn): dyn`, (h: CelHttpContext, url: string, body: unknown) =>
        send(h, method, url, body, {}),
      );
      env.registerFunction(
        `${HTTP_TYPE}.${name}(string, dyn, map<string, string>): dyn`,
        (h: CelHttpContext, url: string, body: unknown, headers: unknown) => send(h, method, url, body, headers),
      );
    }
    env.registerFunction(`${HTTP_TYPE}.${client}(string): ${HTTP_TYPE}`, (h: CelHttpContext, caBundle: string) => {
      if (caBundle === '') return h;
      if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(caBundle)) {
        throw celError('request failed: failed to parse PEM CA bundle for APICall');
      }
      return new CelHttpContext(h.calls, h.port, caBundle);
    });
  }
}

function send(h: CelHttpContext, method: CelHttpMethod, url: string, body: unknown, headers: unknown): unknown {
  const { port, calls } = h;
  if (!port) throw missingPort('http', `cannot ${method} ${url}`);
  const namespace = calls.scope.policyNamespace;
  if (namespace && !calls.scope.allowHttpInNamespacedPolicies) {
    throw celError(
      'request failed: http calls are not allowed in namespaced policies: set --allowHTTPInNamespacedPolicies to enable',
    );
  }
  const request = {
    method,
    url,
    headers: stringMap(headers, `http.${method}`),
    // Go's json.Encoder: Kyverno's request body, with its final newline.
    ...(method === 'GET' ? {} : { body: goJson(celToJson(body, `http.${method}`)) + '\n' }),
    ...(h.caBundle ? { caBundle: h.caBundle } : {}),
  };
  const answer = calls.run(
    'request failed',
    (call) => port.send(request, call),
    (response) => ('mocked' in response ? response.mocked : response.body),
    method === 'GET' ? `http:${JSON.stringify([url, request.headers, h.caBundle ?? ''])}` : undefined,
  );
  return answer instanceof Promise ? answer.then(decode) : decode(answer);
}

/** Kyverno's executeRequest: a JSON object gains `statusCode`; anything else is wrapped. */
function decode(response: CelHttpResponse): unknown {
  if ('mocked' in response) return fromDecodedJson(response.mocked);
  let body: JsonValue = null;
  try {
    body = JSON.parse(response.body) as JsonValue;
  } catch {
    body = null;
  }
  const statusCode = BigInt(response.statusCode);
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const out = fromDecodedJson(body) as Record<string, unknown>;
    out.statusCode = statusCode;
    return out;
  }
  const out: Record<string, unknown> = Object.create(null);
  out.body = fromDecodedJson(body);
  out.statusCode = statusCode;
  return out;
}
