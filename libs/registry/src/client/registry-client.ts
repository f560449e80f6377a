/**
 * Kyverno's `imageRegistry` context data for an image reference: the manifest (for an index, the
 * linux/amd64 image's), the config blob, and the names Kyverno reports. Everything goes through the
 * egress guard, since registry hosts come from references a request controls; answers are capped,
 * digests verified, and results cached (bounded) per reference and credentials.
 */
import { createHash } from 'node:crypto';
import { formatBytes, type EgressClient } from '@edict/egress';
import type { JsonObject } from '@edict/foundation';
import { findRegistryAuth, type DockerConfig, type MatchedAuth } from '../auth/docker-config';
import { ImageDataCache } from '../cache/image-data-cache';
import { parseRegistryReference, type RegistryReference } from '../reference/registry-reference';
import { ImageNotFoundError, RegistryError } from '../registry-errors';
import { resolveRegistryOptions, type RegistryOptions, type ResolvedRegistryOptions } from '../registry.options';
import {
  childForPlatform,
  DEFAULT_PLATFORM,
  digestOf,
  digestProblem,
  isObject,
  MANIFEST_ACCEPT,
  manifestKind,
  type ManifestKind,
} from './manifest';
import { registryErrorText, RegistrySession } from './registry-session';
import { OciRegistryClient } from '../oci/oci-registry-client';
import type { OciAccess, OciClient } from '../oci/oci-types';

export interface ImageDataRequest {
  /**
   * Where credentials come from, best first: the docker config Secrets of the entry's
   * `imageRegistryCredentials.secrets`, else the controller's image pull Secrets.
   */
  readonly dockerConfigs?: readonly DockerConfig[];
  /** `imageRegistryCredentials.allowInsecureRegistry`: no TLS verification, and plain HTTP as a fallback. */
  readonly allowInsecure?: boolean;
}

interface FetchedManifest {
  readonly json: JsonObject;
  readonly kind: ManifestKind;
  readonly digest: string;
}

const MAX_PLAIN_HTTP_HOSTS = 1000;
const MAX_OCI_SESSIONS = 256;

export class RegistryClient {
  readonly options: ResolvedRegistryOptions;
  private readonly cache: ImageDataCache;
  private readonly plainHttpHosts = new Set<string>();
  /** OCI sessions per repository, scheme rule and credentials: a token is fetched once, not per request. */
  private readonly ociSessions = new Map<string, RegistrySession>();

  /** Throws RegistryOptionsError naming each bad option. */
  constructor(
    private readonly egress: EgressClient,
    options: Partial<RegistryOptions> = {},
    now: () => number = Date.now,
  ) {
    this.options = resolveRegistryOptions(options);
    this.cache = new ImageDataCache(this.options.cacheEntries, this.options.cacheTtlMs, now);
  }

  /**
   * The object Kyverno puts in the context: `image`, `resolvedImage`, `registry`, `repository`,
   * `identifier`, `manifest`, `configData`. Rejects with a RegistryError naming the image.
   */
  async imageData(image: string, request: ImageDataRequest = {}): Promise<JsonObject> {
    if (typeof image !== 'string') throw new RegistryError(String(image), 'image reference must be a string');
    const reference = parseRegistryReference(image);
    const credentials = findRegistryAuth(request.dockerConfigs ?? [], reference.registry, reference.repository);
    const allowInsecure = request.allowInsecure === true || this.insecureRegistry(reference);
    const key = [image, allowInsecure ? 'insecure' : 'secure', credentialIdentity(credentials)].join('\u0000');
    const data = await this.cache.get(key, () => this.fetch(reference, credentials, allowInsecure));
    // Callers get their own copy, so nothing they do reaches the cached one.
    return structuredClone(data);
  }

  clearCache(): void {
    this.cache.clear();
  }

  /**
   * The OCI client for one set of credentials (image verification, pushes in tests and tools): the
   * same egress guard, caps and plain-HTTP memory as imageData, one session per repository.
   */
  oci(access: OciAccess = {}): OciClient {
    return new OciRegistryClient(
      this.options,
      (reference, credentials, allowInsecure) => {
        const insecure = allowInsecure || this.insecureRegistry(reference);
        const key = [reference.host, reference.repository, insecure, credentialIdentity(credentials)].join('\u0000');
        let session = this.ociSessions.get(key);
        if (!session) {
          if (this.ociSessions.size >= MAX_OCI_SESSIONS) this.ociSessions.clear();
          session = this.session(reference, credentials, insecure);
          this.ociSessions.set(key, session);
        }
        return session;
      },
      access,
    );
  }

  /**
   * The `insecureRegistries` option: this registry is always allowed plain HTTP and unverified TLS.
   * An entry without a port matches the host on any port, as Docker's insecure-registries does.
   */
  private insecureRegistry(reference: RegistryReference): boolean {
    const listed = this.options.insecureRegistries;
    if (listed.length === 0) return false;
    if (listed.includes('*')) return true;
    return [reference.registry, reference.host].some((name) => {
      const lower = name.toLowerCase();
      const hostOnly = /^(\[[^\]]*\]|[^:]*)/.exec(lower)?.[1] ?? lower;
      return listed.includes(lower) || listed.includes(hostOnly);
    });
  }

  private session(reference: RegistryReference, credentials: MatchedAuth | undefined, allowInsecure: boolean) {
    return new RegistrySession({
      egress: this.egress,
      reference,
      credentials,
      allowInsecure,
      timeoutMs: this.options.timeoutMs,
      plainHttpHosts: {
        has: (host) => this.plainHttpHosts.has(host),
        add: (host) => {
          if (this.plainHttpHosts.size >= MAX_PLAIN_HTTP_HOSTS) this.plainHttpHosts.clear();
          this.plainHttpHosts.add(host);
        },
      },
    });
  }

  private async fetch(
    reference: RegistryReference,
    credentials: MatchedAuth | undefined,
    allowInsecure: boolean,
  ): Promise<JsonObject> {
    const session = this.session(reference, credentials, allowInsecure);
    const top = await this.manifest(session, reference, reference.identifier);
    let image = top;
    if (top.kind === 'index') {
      const child = childForPlatform(top.json);
      const platform = `${DEFAULT_PLATFORM.os}/${DEFAULT_PLATFORM.architecture}`;
      if (!child) {
        throw new RegistryError(reference.image, `the index ${top.digest} has no image for platform ${platform}`);
      }
      const problem = digestProblem(child.digest);
      if (problem) throw new RegistryError(reference.image, `the index's ${platform} entry has an ${problem}`);
      image = await this.manifest(session, reference, child.digest as string);
      if (image.kind !== 'image') {
        throw new RegistryError(
          reference.image,
          `the index's ${platform} entry ${image.digest} is not an image manifest`,
        );
      }
    }
    const configData = await this.config(session, reference, image.json);
    // Keys in the order Go's encoding/json writes a map: sorted.
    return {
      configData,
      identifier: reference.identifier,
      image: reference.image,
      manifest: image.json,
      registry: reference.registry,
      repository: reference.repository,
      resolvedImage: `${reference.registry}/${reference.repository}@${top.digest}`,
    };
  }

  private async manifest(
    session: RegistrySession,
    reference: RegistryReference,
    identifier: string,
  ): Promise<FetchedManifest> {
    const where = `${reference.registry}/${reference.repository}`;
    const response = await session.get(
      `/v2/${reference.repository}/manifests/${identifier}`,
      this.options.maxManifestBytes,
      MANIFEST_ACCEPT,
    );
    if (response.status === 404) {
      throw new ImageNotFoundError(
        reference.image,
        `manifest ${identifier} not found in ${where}${registryErrorText(response.body)}`,
      );
    }
    if (response.status !== 200) {
      throw new RegistryError(
        reference.image,
        `${response.url} answered ${response.status}${registryErrorText(response.body)}`,
      );
    }
    const byDigest = digestProblem(identifier) === undefined;
    const digest = digestOf(response.body, byDigest ? identifier : undefined);
    if (byDigest && digest !== identifier) {
      throw new RegistryError(reference.image, `digest mismatch: asked for ${identifier}, the manifest's is ${digest}`);
    }
    const announced = response.headers['docker-content-digest'];
    if (typeof announced === 'string' && digestProblem(announced) === undefined) {
      const computed = digestOf(response.body, announced);
      if (computed !== announced) {
        throw new RegistryError(
          reference.image,
          `the manifest's digest ${computed} does not match its Docker-Content-Digest ${announced}`,
        );
      }
    }
    const json = parseJsonObject(response.body, reference.image, `the manifest ${identifier}`);
    const kind = manifestKind(response.headers['content-type'], json);
    if (kind !== 'image' && kind !== 'index') throw new RegistryError(reference.image, kind);
    return { json, kind, digest: byDigest ? identifier : digestOf(response.body) };
  }

  private async config(
    session: RegistrySession,
    reference: RegistryReference,
    manifest: JsonObject,
  ): Promise<JsonObject> {
    const descriptor = manifest.config;
    if (!isObject(descriptor)) throw new RegistryError(reference.image, 'the image manifest has no config');
    const problem = digestProblem(descriptor.digest);
    if (problem) throw new RegistryError(reference.image, `the image manifest's config has an ${problem}`);
    const digest = descriptor.digest as string;
    const limit = this.options.maxConfigBytes;
    if (typeof descriptor.size === 'number' && descriptor.size > limit) {
      throw new RegistryError(
        reference.image,
        `the config blob ${digest} (${descriptor.size} bytes) exceeds the ${formatBytes(limit)} limit`,
      );
    }
    const response = await session.get(`/v2/${reference.repository}/blobs/${digest}`, limit);
    if (response.status === 404) {
      throw new ImageNotFoundError(
        reference.image,
        `config blob ${digest} not found in ${reference.registry}/${reference.repository}${registryErrorText(response.body)}`,
      );
    }
    if (response.status !== 200) {
      throw new RegistryError(
        reference.image,
        `${response.url} answered ${response.status}${registryErrorText(response.body)}`,
      );
    }
    const actual = digestOf(response.body, digest);
    if (actual !== digest) {
      throw new RegistryError(reference.image, `digest mismatch: the config blob ${digest} has digest ${actual}`);
    }
    return parseJsonObject(response.body, reference.image, `the config blob ${digest}`);
  }
}

/** Who the data was fetched as: the cache keeps what one set of credentials saw apart from another. */
function credentialIdentity(credentials: MatchedAuth | undefined): string {
  if (!credentials) return 'anonymous';
  return createHash('sha256')
    .update(JSON.stringify([credentials.source, credentials.key, credentials.auth]))
    .digest('hex');
}

function parseJsonObject(body: Buffer, image: string, what: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new RegistryError(image, `${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new RegistryError(image, `${what} is not a JSON object`);
  return parsed;
}
