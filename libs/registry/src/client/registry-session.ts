/**
 * The HTTP side of one image lookup: every call through the egress guard, the scheme (HTTPS; plain
 * HTTP only as the fallback `allowInsecureRegistry` permits, as go-containerregistry does), and the
 * auth handshake on a 401: Basic, or a Bearer token from the challenge's realm.
 */
import { EgressError, EgressRequestError, type EgressClient, type EgressResponse } from '@edict/egress';
import type { JsonObject } from '@edict/foundation';
import { parseAuthChallenge } from '../auth/challenge';
import type { MatchedAuth } from '../auth/docker-config';
import type { RegistryReference } from '../reference/registry-reference';
import { RegistryAuthError, RegistryError } from '../registry-errors';

const MAX_TOKEN_RESPONSE_BYTES = 1024 * 1024;
const MAX_TOKEN_CHARS = 16 * 1024;
const MAX_REDIRECTS = 5;

export interface SessionSettings {
  readonly egress: EgressClient;
  readonly reference: RegistryReference;
  readonly credentials?: MatchedAuth;
  readonly allowInsecure: boolean;
  readonly timeoutMs: number;
  /** Hosts known to answer plain HTTP only (remembered by the client). */
  readonly plainHttpHosts: { has(host: string): boolean; add(host: string): void };
}

export interface SessionRequest {
  /** Response body cap in bytes. */
  readonly limit: number;
  readonly accept?: string;
  readonly contentType?: string;
  readonly body?: string | Uint8Array;
}

export class RegistrySession {
  private authorization: string | undefined;

  constructor(private readonly settings: SessionSettings) {}

  /** GETs an API path (`/v2/...`), authenticating once when the registry asks for it. */
  get(path: string, limit: number, accept?: string): Promise<EgressResponse> {
    return this.request('GET', path, { limit, ...(accept ? { accept } : {}) });
  }

  /**
   * Any API call (`/v2/...`, a query string allowed), authenticating when the registry asks for it:
   * a 401 after a token for reading can come back on a write, which needs a token for pushing.
   */
  async request(method: string, path: string, options: SessionRequest): Promise<EgressResponse> {
    let response = await this.send(method, path, options);
    if (response.status === 401) {
      await this.authenticate(response);
      response = await this.send(method, path, options);
      if (response.status === 401 || response.status === 403) {
        throw new RegistryAuthError(
          this.settings.reference.image,
          `${this.settings.reference.registry} refused ${this.credentialsText()} (${response.status}${registryErrorText(response.body)})`,
        );
      }
    }
    return response;
  }

  private async send(method: string, path: string, options: SessionRequest): Promise<EgressResponse> {
    const { reference, allowInsecure, plainHttpHosts } = this.settings;
    const headers: Record<string, string> = {};
    if (options.accept) headers.accept = options.accept;
    if (options.contentType) headers['content-type'] = options.contentType;
    if (this.authorization) headers.authorization = this.authorization;
    const init = { method, body: options.body, redirects: method === 'GET' || method === 'HEAD' };
    if (allowInsecure && plainHttpHosts.has(reference.host))
      return this.call(`http://${reference.host}${path}`, headers, options.limit, init);
    try {
      return await this.call(`https://${reference.host}${path}`, headers, options.limit, init);
    } catch (error) {
      // A registry that speaks plain HTTP fails the TLS handshake; only then, and only when allowed, retry over HTTP.
      const connectionFailed = error instanceof RegistryError && error.cause instanceof EgressRequestError;
      if (!allowInsecure || !connectionFailed) throw error;
      const response = await this.call(`http://${reference.host}${path}`, headers, options.limit, init);
      plainHttpHosts.add(reference.host);
      return response;
    }
  }

  /** One egress call; its errors become RegistryErrors naming the image. */
  private async call(
    url: string,
    headers: Record<string, string>,
    limit: number,
    init: { method?: string; body?: string | Uint8Array; redirects?: boolean } = {},
  ): Promise<EgressResponse> {
    try {
      return await this.settings.egress.request(url, {
        method: init.method,
        body: init.body,
        headers,
        maxResponseBytes: limit,
        timeoutMs: this.settings.timeoutMs,
        // Reads follow redirects (blobs live in storage elsewhere); writes answer where they stand.
        maxRedirects: init.redirects === false ? 0 : MAX_REDIRECTS,
        insecureSkipTlsVerify: this.settings.allowInsecure,
      });
    } catch (error) {
      if (error instanceof EgressError)
        throw new RegistryError(this.settings.reference.image, error.message, { cause: error });
      throw error;
    }
  }

  private async authenticate(response: EgressResponse): Promise<void> {
    const { reference, credentials } = this.settings;
    const challenge = parseAuthChallenge(response.headers['www-authenticate']);
    if (!challenge) {
      throw new RegistryAuthError(
        reference.image,
        `${reference.registry} answered 401 without a usable WWW-Authenticate challenge`,
      );
    }
    const auth = credentials?.auth;
    if (challenge.scheme === 'basic') {
      if (auth?.username === undefined) {
        throw new RegistryAuthError(
          reference.image,
          `${reference.registry} requires credentials (Basic) and no docker config Secret has any for it`,
        );
      }
      this.authorization = basicHeader(auth.username, auth.password ?? '');
      return;
    }
    if (challenge.scheme !== 'bearer') {
      throw new RegistryAuthError(
        reference.image,
        `${reference.registry} asks for unsupported authentication "${challenge.scheme}"`,
      );
    }
    this.authorization = `Bearer ${auth?.registryToken ?? (await this.fetchToken(challenge.params))}`;
  }

  /** The distribution token flow: GET with Basic credentials, or an OAuth2 POST for identity tokens. */
  private async fetchToken(params: Readonly<Record<string, string>>): Promise<string> {
    const { reference, credentials, allowInsecure } = this.settings;
    let realm: URL;
    try {
      realm = new URL(params.realm ?? '');
    } catch {
      throw new RegistryAuthError(
        reference.image,
        `${reference.registry} sent a bearer challenge without a valid realm`,
      );
    }
    if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && allowInsecure)) {
      throw new RegistryAuthError(
        reference.image,
        `token realm ${realm.origin} is not HTTPS (plain HTTP only with allowInsecureRegistry)`,
      );
    }
    const scopes = [`repository:${reference.repository}:pull`];
    // A challenge may name several scopes, space separated (distribution asks for pull and push that way).
    for (const scope of (params.scope ?? '').split(/\s+/).slice(0, 16)) {
      if (scope && !scopes.includes(scope)) scopes.push(scope);
    }
    const auth = credentials?.auth;
    const headers: Record<string, string> = { accept: 'application/json' };
    let response: EgressResponse;
    if (auth?.identityToken) {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: auth.identityToken,
        client_id: 'edict',
        scope: scopes.join(' '),
        ...(params.service ? { service: params.service } : {}),
      });
      headers['content-type'] = 'application/x-www-form-urlencoded';
      response = await this.call(realm.href, headers, MAX_TOKEN_RESPONSE_BYTES, {
        method: 'POST',
        body: form.toString(),
      });
    } else {
      if (params.service) realm.searchParams.set('service', params.service);
      for (const scope of scopes) realm.searchParams.append('scope', scope);
      if (auth?.username !== undefined) headers.authorization = basicHeader(auth.username, auth.password ?? '');
      response = await this.call(realm.href, headers, MAX_TOKEN_RESPONSE_BYTES);
    }
    if (response.status === 401 || response.status === 403) {
      throw new RegistryAuthError(
        reference.image,
        `the token endpoint ${realm.origin}${realm.pathname} refused ${this.credentialsText()} (${response.status})`,
      );
    }
    if (response.status < 200 || response.status > 299) {
      throw new RegistryAuthError(
        reference.image,
        `the token endpoint ${realm.origin}${realm.pathname} answered ${response.status}`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new RegistryAuthError(
        reference.image,
        `the token endpoint ${realm.origin}${realm.pathname} answered invalid JSON`,
      );
    }
    const token = (body as JsonObject | null)?.token ?? (body as JsonObject | null)?.access_token;
    if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_CHARS || /[\s]/.test(token)) {
      throw new RegistryAuthError(
        reference.image,
        `the token endpoint ${realm.origin}${realm.pathname} answered no usable token`,
      );
    }
    return token;
  }

  private credentialsText(): string {
    const credentials = this.settings.credentials;
    return credentials ? `the credentials for "${credentials.key}" from ${credentials.source}` : 'anonymous access';
  }
}

/** `: CODE message` from a distribution error body, or nothing. */
export function registryErrorText(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    const first = parsed.errors?.[0];
    if (!first) return '';
    const text = [first.code, first.message].filter((part) => typeof part === 'string').join(' ');
    return text ? `: ${text.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

function basicHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
