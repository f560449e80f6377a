/**
 * An in-process OCI distribution registry on 127.0.0.1 for tests: images (OCI or Docker media
 * types), indexes, raw manifests and blobs, anonymous, Basic or token (Bearer) auth, and blobs
 * served through a redirect as real registries do with their storage.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonObject } from '@edict/foundation';
import { MEDIA_TYPES } from '../client/manifest';

export interface FakePlatform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

export interface FakeImage {
  readonly config: JsonObject;
  readonly platform?: FakePlatform;
  /** `oci` (default) or `docker` media types. */
  readonly format?: 'oci' | 'docker';
}

export interface PushedImage {
  readonly manifestDigest: string;
  readonly configDigest: string;
  readonly manifest: JsonObject;
}

export type FakeRegistryAuth =
  | { readonly type: 'basic'; readonly username: string; readonly password: string }
  /** Tokens from `/token`; with username/password the token endpoint wants Basic credentials. */
  | {
      readonly type: 'bearer';
      readonly username?: string;
      readonly password?: string;
      /** An OAuth2 refresh token (`identitytoken`) the token endpoint accepts by POST. */
      readonly refreshToken?: string;
    };

export interface FakeRegistryOptions {
  readonly auth?: FakeRegistryAuth;
  /** Blob GETs answer 307 to `/storage/<digest>` (served without auth). */
  readonly redirectBlobs?: boolean;
  /**
   * Serve the OCI 1.1 referrers API (`/v2/<name>/referrers/<digest>`) and answer manifest pushes
   * with `OCI-Subject`; without it the registry behaves as distribution 2.8 (404, fallback tags).
   */
  readonly referrersApi?: boolean;
  /** Referrers per page of the referrers API (default: all on one page). */
  readonly referrersPageSize?: number;
  /** Upload starts answer with this origin in their Location (a registry sending uploads elsewhere). */
  readonly uploadOrigin?: string;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization?: string;
  readonly accept?: string;
  readonly contentType?: string;
}

interface StoredManifest {
  readonly body: Buffer;
  readonly mediaType: string;
}

export const FAKE_REGISTRY_SERVICE = 'fake-registry';

export class FakeRegistry {
  readonly requests: RecordedRequest[] = [];
  private readonly manifests = new Map<string, StoredManifest>();
  private readonly blobs = new Map<string, Buffer>();
  private readonly tokens = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    /** `127.0.0.1:<port>`, the registry part of image references. */
    readonly host: string,
    private readonly options: FakeRegistryOptions,
  ) {}

  static async start(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const registry = new FakeRegistry(server, `127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => registry.handle(req, res));
    return registry;
  }

  /** Stores a blob and returns its digest. */
  putBlob(content: Buffer | string): string {
    const body = Buffer.from(content);
    const digest = sha256(body);
    this.blobs.set(digest, body);
    return digest;
  }

  /** Stores a manifest under its digest and, when given, a tag; returns the digest. */
  putManifest(repository: string, body: Buffer | string, mediaType: string, tag?: string): string {
    const stored = { body: Buffer.from(body), mediaType };
    const digest = sha256(stored.body);
    this.manifests.set(`${repository}@${digest}`, stored);
    if (tag !== undefined) this.manifests.set(`${repository}:${tag}`, stored);
    return digest;
  }

  /** Serves other content under an existing tag or digest (a lying registry or a tampering proxy). */
  tamperManifest(repository: string, reference: string, body: Buffer | string): void {
    const key = `${repository}${reference.startsWith('sha256:') ? '@' : ':'}${reference}`;
    const stored = this.manifests.get(key);
    if (!stored) throw new Error(`no manifest ${key}`);
    this.manifests.set(key, { ...stored, body: Buffer.from(body) });
  }

  /** Serves other content under a blob digest. */
  tamperBlob(digest: string, content: Buffer | string): void {
    if (!this.blobs.has(digest)) throw new Error(`no blob ${digest}`);
    this.blobs.set(digest, Buffer.from(content));
  }

  /** An image: its config blob, a one-layer manifest, tagged. */
  pushImage(repository: string, tag: string | undefined, image: FakeImage): PushedImage {
    const docker = image.format === 'docker';
    const configBody = JSON.stringify(image.config);
    const configDigest = this.putBlob(configBody);
    const layer = Buffer.from(`layer of ${repository}:${tag ?? ''} ${JSON.stringify(image.platform ?? {})}`);
    const layerDigest = this.putBlob(layer);
    const manifest: JsonObject = {
      schemaVersion: 2,
      mediaType: docker ? MEDIA_TYPES.dockerManifest : MEDIA_TYPES.ociManifest,
      config: {
        mediaType: docker
          ? 'application/vnd.docker.container.image.v1+json'
          : 'application/vnd.oci.image.config.v1+json',
        digest: configDigest,
        size: Buffer.byteLength(configBody),
      },
      layers: [
        {
          mediaType: docker
            ? 'application/vnd.docker.image.rootfs.diff.tar.gzip'
            : 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: layerDigest,
          size: layer.length,
        },
      ],
    };
    const manifestDigest = this.putManifest(
      repository,
      JSON.stringify(manifest),
      docker ? MEDIA_TYPES.dockerManifest : MEDIA_TYPES.ociManifest,
      tag,
    );
    return { manifestDigest, configDigest, manifest };
  }

  /** A multi-platform index over images pushed by digest; returns the index digest and the images. */
  pushIndex(
    repository: string,
    tag: string,
    images: readonly FakeImage[],
    format: 'oci' | 'docker' = 'oci',
  ): { indexDigest: string; images: PushedImage[] } {
    const pushed = images.map((image) => this.pushImage(repository, undefined, { ...image, format }));
    const mediaType = format === 'docker' ? MEDIA_TYPES.dockerManifestList : MEDIA_TYPES.ociIndex;
    const index = {
      schemaVersion: 2,
      mediaType,
      manifests: pushed.map((image, i) => ({
        mediaType: format === 'docker' ? MEDIA_TYPES.dockerManifest : MEDIA_TYPES.ociManifest,
        digest: image.manifestDigest,
        size: Buffer.byteLength(JSON.stringify(image.manifest)),
        ...(images[i].platform ? { platform: images[i].platform } : {}),
      })),
    };
    return { indexDigest: this.putManifest(repository, JSON.stringify(index), mediaType, tag), images: pushed };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://${this.host}`);
    this.requests.push({
      method: req.method ?? '',
      path: `${url.pathname}${url.search}`,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(req.headers.accept ? { accept: req.headers.accept } : {}),
      ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
    });
    if (url.pathname === '/token') return this.issueToken(req, url, res);
    const storage = /^\/storage\/(.+)$/.exec(url.pathname);
    if (storage) return this.sendBlob(storage[1], res);
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      if (!this.authorized(req, undefined, res)) return;
      return json(res, 200, {});
    }
    const upload = /^\/v2\/(.+)\/blobs\/uploads\/([^/]*)$/.exec(url.pathname);
    if (upload) {
      if (!this.authorized(req, upload[1], res)) return;
      return this.upload(req, res, upload[1], upload[2], url);
    }
    const referrers = /^\/v2\/(.+)\/referrers\/([^/]+)$/.exec(url.pathname);
    if (referrers && this.options.referrersApi) {
      if (!this.authorized(req, referrers[1], res)) return;
      return this.listReferrers(res, referrers[1], referrers[2], url);
    }
    const route = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (!route) return errors(res, 404, 'NAME_UNKNOWN', 'no such route');
    const [, repository, kind, reference] = route;
    if (!this.authorized(req, repository, res)) return;
    if (kind === 'manifests' && req.method === 'PUT') return this.receiveManifest(req, res, repository, reference);
    if (kind === 'blobs') {
      if (this.options.redirectBlobs && this.blobs.has(reference)) {
        res.writeHead(307, { location: `/storage/${reference}` }).end();
        return;
      }
      return this.sendBlob(reference, res, req.method === 'HEAD');
    }
    const separator = reference.startsWith('sha256:') ? '@' : ':';
    const manifest = this.manifests.get(`${repository}${separator}${reference}`);
    if (!manifest) return errors(res, 404, 'MANIFEST_UNKNOWN', `manifest unknown: ${repository}:${reference}`);
    res.writeHead(200, {
      'content-type': manifest.mediaType,
      'content-length': manifest.body.length,
      'docker-content-digest': sha256(manifest.body),
    });
    res.end(req.method === 'HEAD' ? undefined : manifest.body);
  }

  private sendBlob(digest: string, res: ServerResponse, head = false): void {
    const blob = this.blobs.get(digest);
    if (!blob) return errors(res, 404, 'BLOB_UNKNOWN', `blob unknown: ${digest}`);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length });
    res.end(head ? undefined : blob);
  }

  /** The two-step monolithic upload: POST opens a session, PUT `?digest=` brings the whole blob. */
  private upload(req: IncomingMessage, res: ServerResponse, repository: string, id: string, url: URL): void {
    if (req.method === 'POST' && id === '') {
      const session = randomBytes(8).toString('hex');
      res.writeHead(202, {
        location: `${this.options.uploadOrigin ?? ''}/v2/${repository}/blobs/uploads/${session}?state=${session}`,
        'content-length': 0,
      });
      res.end();
      return;
    }
    if (req.method !== 'PUT' || id === '') return errors(res, 405, 'UNSUPPORTED', 'unsupported upload step');
    readBody(req, (body) => {
      const digest = url.searchParams.get('digest') ?? '';
      if (sha256(body) !== digest)
        return errors(res, 400, 'DIGEST_INVALID', 'provided digest did not match uploaded content');
      this.blobs.set(digest, body);
      res.writeHead(201, {
        location: `/v2/${repository}/blobs/${digest}`,
        'docker-content-digest': digest,
        'content-length': 0,
      });
      res.end();
    });
  }

  private receiveManifest(req: IncomingMessage, res: ServerResponse, repository: string, reference: string): void {
    readBody(req, (body) => {
      const digest = sha256(body);
      if (reference.startsWith('sha256:') && reference !== digest) {
        return errors(res, 400, 'DIGEST_INVALID', 'provided digest did not match uploaded content');
      }
      const mediaType = req.headers['content-type'] ?? '';
      this.putManifest(repository, body, mediaType, reference.startsWith('sha256:') ? undefined : reference);
      const headers: Record<string, string | number> = { 'docker-content-digest': digest, 'content-length': 0 };
      const subject = this.options.referrersApi ? subjectOf(body) : undefined;
      if (subject) headers['oci-subject'] = subject;
      res.writeHead(201, headers);
      res.end();
    });
  }

  /** OCI 1.1 referrers: every manifest of the repository whose subject is the digest, optionally filtered and paged. */
  private listReferrers(res: ServerResponse, repository: string, digest: string, url: URL): void {
    const artifactType = url.searchParams.get('artifactType');
    const seen = new Set<string>();
    const all: JsonObject[] = [];
    for (const [key, stored] of this.manifests) {
      if (!key.startsWith(`${repository}@`) || seen.has(key)) continue;
      seen.add(key);
      if (subjectOf(stored.body) !== digest) continue;
      const manifest = JSON.parse(stored.body.toString('utf8')) as JsonObject;
      const config = manifest.config as JsonObject | undefined;
      const type = (manifest.artifactType as string | undefined) ?? (config?.mediaType as string | undefined);
      if (artifactType !== null && type !== artifactType) continue;
      all.push({
        mediaType: stored.mediaType,
        digest: sha256(stored.body),
        size: stored.body.length,
        ...(type ? { artifactType: type } : {}),
        ...(manifest.annotations ? { annotations: manifest.annotations } : {}),
      });
    }
    const size = this.options.referrersPageSize ?? Math.max(all.length, 1);
    const start = Number(url.searchParams.get('start') ?? '0');
    const page = all.slice(start, start + size);
    const headers: Record<string, string> = { 'content-type': MEDIA_TYPES.ociIndex };
    if (artifactType !== null) headers['oci-filters-applied'] = 'artifactType';
    if (start + size < all.length) {
      const next = new URLSearchParams(url.searchParams);
      next.set('start', String(start + size));
      headers.link = `</v2/${repository}/referrers/${digest}?${next.toString()}>; rel="next"`;
    }
    res.writeHead(200, headers);
    res.end(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests: page }));
  }

  private authorized(req: IncomingMessage, repository: string | undefined, res: ServerResponse): boolean {
    const auth = this.options.auth;
    if (!auth) return true;
    const header = req.headers.authorization ?? '';
    if (auth.type === 'basic') {
      if (header === basic(auth.username, auth.password)) return true;
      res.setHeader('www-authenticate', 'Basic realm="fake-registry"');
      errors(res, 401, 'UNAUTHORIZED', 'authentication required');
      return false;
    }
    const write = req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH' || req.method === 'DELETE';
    // Writes ask for two scopes, space separated, as distribution's challenges do.
    const scope =
      repository === undefined
        ? undefined
        : write
          ? `repository:${repository}:pull repository:${repository}:push`
          : `repository:${repository}:pull`;
    const granted = header.startsWith('Bearer ') ? this.tokens.get(header.slice('Bearer '.length)) : undefined;
    if (granted !== undefined && (scope === undefined || grants(granted, repository!, write))) return true;
    res.setHeader(
      'www-authenticate',
      `Bearer realm="http://${this.host}/token",service="${FAKE_REGISTRY_SERVICE}"${scope ? `,scope="${scope}"` : ''}`,
    );
    errors(res, 401, 'UNAUTHORIZED', 'authentication required');
    return false;
  }

  private issueToken(req: IncomingMessage, url: URL, res: ServerResponse): void {
    const auth = this.options.auth;
    if (auth?.type !== 'bearer') return errors(res, 404, 'UNSUPPORTED', 'no token endpoint');
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const valid =
          form.get('grant_type') === 'refresh_token' &&
          auth.refreshToken !== undefined &&
          form.get('refresh_token') === auth.refreshToken;
        if (!valid) return errors(res, 401, 'UNAUTHORIZED', 'bad refresh token');
        this.grant(form.get('service'), (form.get('scope') ?? '').split(' '), 'access_token', res);
      });
      return;
    }
    if (auth.username !== undefined && req.headers.authorization !== basic(auth.username, auth.password ?? '')) {
      return errors(res, 401, 'UNAUTHORIZED', 'bad credentials');
    }
    this.grant(url.searchParams.get('service'), url.searchParams.getAll('scope'), 'token', res);
  }

  private grant(service: string | null, scopes: string[], field: 'token' | 'access_token', res: ServerResponse): void {
    if (service !== FAKE_REGISTRY_SERVICE) return errors(res, 400, 'DENIED', 'unknown service');
    const token = randomBytes(12).toString('hex');
    this.tokens.set(token, scopes.join(' '));
    json(res, 200, { [field]: token, expires_in: 300 });
  }
}

/** Whether granted scopes (space separated) allow pulling, or pushing, the repository. */
function grants(granted: string, repository: string, write: boolean): boolean {
  return granted.split(' ').some((scope) => {
    const [type, name, actions] = scope.split(':');
    if (type !== 'repository' || name !== repository) return false;
    const allowed = (actions ?? '').split(',');
    return write ? allowed.includes('push') : allowed.includes('pull');
  });
}

function subjectOf(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { subject?: { digest?: unknown } };
    return typeof parsed.subject?.digest === 'string' ? parsed.subject.digest : undefined;
  } catch {
    return undefined;
  }
}

function readBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(Buffer.concat(chunks)));
}

function sha256(body: Buffer): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function errors(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { errors: [{ code, message }] });
}
