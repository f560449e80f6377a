/**
 * POSTs an AdmissionReview to a webhook over HTTPS, as kube-apiserver's webhook client does: only the
 * configuration's caBundle is trusted, the server name is the URL host or `<svc>.<ns>.svc`, the URL
 * carries `?timeout=<n>s` and the call is abandoned at that deadline. Failures are Errors worded like
 * Go's HTTP client (`Post "<url>": ...`), the text kube puts after `failed to call webhook: `.
 */
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { JsonValue } from '@edict/foundation';
import type { WebhookAgents } from './webhook-agents';
import type { Webhook } from './webhooks';

/** `namespace/name` (or `namespace/name:port`) → base URL of a local server standing in for the service. */
export type ServiceEndpoints = Readonly<Record<string, string>>;

const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

interface Target {
  /** The URL kube would call (shown in errors). */
  readonly displayUrl: string;
  readonly connectUrl: URL;
  /** The name the certificate must carry. */
  readonly serverName: string;
}

function resolveTarget(webhook: Webhook, endpoints: ServiceEndpoints): Target {
  const timeout = `timeout=${webhook.timeoutSeconds}s`;
  if (webhook.url) {
    const url = new URL(webhook.url);
    url.search = url.search ? `${url.search}&${timeout}` : `?${timeout}`;
    return { displayUrl: url.toString(), connectUrl: url, serverName: url.hostname.replace(/^\[|\]$/g, '') };
  }
  const service = webhook.service;
  if (!service) throw new Error('webhook has neither clientConfig.url nor clientConfig.service');
  const host = `${service.name}.${service.namespace}.svc`;
  const path = service.path ?? '';
  const displayUrl = `https://${host}:${service.port}${path}?${timeout}`;
  const key = `${service.namespace}/${service.name}`;
  const base = endpoints[`${key}:${service.port}`] ?? endpoints[key];
  if (base === undefined) {
    throw new Error(
      `Post "${displayUrl}": dial tcp: lookup ${host}: no such host (no local endpoint configured for service ${key})`,
    );
  }
  const connectUrl = new URL(base);
  connectUrl.pathname = path || '/';
  connectUrl.search = `?${timeout}`;
  return { displayUrl, connectUrl, serverName: host };
}

/** Go's wording for the usual transport failures. */
function describe(error: NodeJS.ErrnoException, target: Target): string {
  const where = `${target.connectUrl.hostname}:${target.connectUrl.port || 443}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${where}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${where}: read: connection reset by peer`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.serverName} (${error.message})`;
    default:
      return error.message;
  }
}

/**
 * Sends the review; resolves with the parsed JSON answer or rejects with Go-worded Error text.
 * With `agents`, the call reuses a kept-alive connection to the same endpoint; without, it opens its own.
 */
export function callWebhook(
  webhook: Webhook,
  endpoints: ServiceEndpoints,
  review: JsonValue,
  agents?: WebhookAgents,
): Promise<JsonValue> {
  let target: Target;
  try {
    target = resolveTarget(webhook, endpoints);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const body = JSON.stringify(review);
  const url = target.connectUrl;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || 443;
  const agent =
    agents?.agentFor({
      address: `${hostname}:${port}`,
      serverName: target.serverName,
      ...(webhook.caBundle ? { caBundle: webhook.caBundle } : {}),
    }) ?? false;
  return new Promise<JsonValue>((resolve, reject) => {
    const fail = (reason: string): void => reject(new Error(`Post "${target.displayUrl}": ${reason}`));
    const request = httpsRequest(
      {
        protocol: 'https:',
        hostname,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': Buffer.byteLength(body),
        },
        // Only the configured bundle is trusted (Node's default roots when there is none, like kube's system roots).
        ...(webhook.caBundle ? { ca: webhook.caBundle } : {}),
        // SNI must be a host name; for IP targets the certificate is checked against the IP.
        ...(isIP(target.serverName) ? {} : { servername: target.serverName }),
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            request.destroy();
            fail('webhook response too large');
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            const detail = text.trim() ? ` (${JSON.stringify(text.trim().slice(0, 256))})` : '';
            reject(
              new Error(
                `the server responded with the status code ${status} but did not return more information${detail}`,
              ),
            );
            return;
          }
          try {
            resolve(JSON.parse(text) as JsonValue);
          } catch (error) {
            reject(new Error(`couldn't decode webhook response: ${(error as Error).message}`));
          }
        });
        response.on('error', (error) => fail(describe(error, target)));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      fail('context deadline exceeded');
    }, webhook.timeoutSeconds * 1000);
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(describe(error, target));
    });
    request.end(body);
  });
}
