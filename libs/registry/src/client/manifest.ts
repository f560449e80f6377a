/** Manifest kinds, digests and platform choice, as go-containerregistry does them for Kyverno. */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@edict/foundation';

export const MEDIA_TYPES = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerSchema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
} as const;

/** What manifest requests accept: images and indexes, OCI and Docker. */
export const MANIFEST_ACCEPT = [
  MEDIA_TYPES.ociIndex,
  MEDIA_TYPES.dockerManifestList,
  MEDIA_TYPES.ociManifest,
  MEDIA_TYPES.dockerManifest,
].join(', ');

/** Kyverno resolves an index to this platform (go-containerregistry's default). */
export const DEFAULT_PLATFORM = { os: 'linux', architecture: 'amd64' } as const;

export type ManifestKind = 'image' | 'index';

const IMAGE_TYPES = new Set<string>([MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest]);
const INDEX_TYPES = new Set<string>([MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerManifestList]);
const SCHEMA1_TYPES = new Set<string>([MEDIA_TYPES.dockerSchema1, MEDIA_TYPES.dockerSchema1Signed]);

const DIGEST = /^(sha256|sha384|sha512):([a-f0-9]+)$/;
const HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/**
 * The manifest's kind from the Content-Type, else its `mediaType` field, else its shape. Returns a
 * problem string for what Kyverno cannot read as an image either.
 */
export function manifestKind(contentType: string | undefined, manifest: JsonObject): ManifestKind | string {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const field = typeof manifest.mediaType === 'string' ? manifest.mediaType : '';
  for (const type of [declared, field]) {
    if (IMAGE_TYPES.has(type)) return 'image';
    if (INDEX_TYPES.has(type)) return 'index';
    if (SCHEMA1_TYPES.has(type)) return `Docker schema 1 manifests (${type}) are not supported`;
  }
  if (Array.isArray(manifest.manifests)) return 'index';
  if (isObject(manifest.config)) return 'image';
  return `unsupported manifest media type ${JSON.stringify(declared || field)}`;
}

/** Validates a digest string (`sha256:<64 hex>` and the like); returns a problem or undefined. */
export function digestProblem(digest: JsonValue | undefined): string | undefined {
  if (typeof digest !== 'string') return 'missing digest';
  const match = DIGEST.exec(digest);
  if (!match || HEX_LENGTH[match[1]] !== match[2].length)
    return `invalid digest ${JSON.stringify(digest.slice(0, 140))}`;
  return undefined;
}

/** The digest of content with the algorithm of `like` (sha256 by default). */
export function digestOf(content: Buffer, like?: string): string {
  const algorithm = like && DIGEST.test(like) ? like.slice(0, like.indexOf(':')) : 'sha256';
  return `${algorithm}:${createHash(algorithm).update(content).digest('hex')}`;
}

/** The descriptor of the index entry for the platform: os and architecture equal; any variant. */
export function childForPlatform(
  index: JsonObject,
  platform: { os: string; architecture: string } = DEFAULT_PLATFORM,
): JsonObject | undefined {
  const manifests = Array.isArray(index.manifests) ? index.manifests : [];
  return manifests.find(
    (entry): entry is JsonObject =>
      isObject(entry) &&
      isObject(entry.platform) &&
      entry.platform.os === platform.os &&
      entry.platform.architecture === platform.architecture,
  );
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
