/**
 * Small real images for tests: a gzipped tar layer holding one file of random (or seeded) bytes, an
 * OCI config naming its diff ID, an OCI image manifest; an image index when several platforms are
 * asked for. Everything goes over the OCI API, as a build tool pushes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { JsonObject } from '@edict/foundation';
import { MEDIA_TYPES } from '../client/manifest';
import type { OciClient, OciDescriptor } from '../oci/oci-types';

export interface TestImageOptions {
  /** Same seed, same image (same digests); default random. */
  readonly seed?: string;
  /** `os/architecture[/variant]`; default `linux/amd64`. Several make an image index. */
  readonly platforms?: readonly string[];
  /** Labels in the image config. */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface PushedTestImage {
  /** The digest of what the tag points at: the index for several platforms, else the image manifest. */
  readonly digest: string;
  /** `repo:tag`. */
  readonly reference: string;
  /** `repo@digest`. */
  readonly digestReference: string;
  readonly mediaType: string;
  /** Each platform's image manifest digest (`linux/amd64` -> `sha256:...`). */
  readonly platforms: Readonly<Record<string, string>>;
}

/** Pushes a small image (or an index of images, one per platform) to `repo` (`registry/repository`) under `tag`. */
export async function pushTestImage(
  client: OciClient,
  repo: string,
  tag: string,
  options: TestImageOptions = {},
): Promise<PushedTestImage> {
  const platforms = options.platforms ?? ['linux/amd64'];
  if (platforms.length === 0) throw new Error('pushTestImage: platforms must not be empty');
  const seed = options.seed ?? randomBytes(16).toString('hex');
  const images: Array<{ platform: string; descriptor: OciDescriptor; bytes: Buffer }> = [];
  for (const platform of platforms) {
    images.push({ platform, ...(await pushImage(client, repo, seed, platform, options.labels)) });
  }
  if (platforms.length === 1) {
    const pushed = await client.pushManifest(repo, tag, images[0].bytes, MEDIA_TYPES.ociManifest);
    return result(repo, tag, pushed, { [platforms[0]]: pushed.digest });
  }
  const index: JsonObject = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociIndex,
    manifests: images.map(({ platform, descriptor }) => ({
      mediaType: MEDIA_TYPES.ociManifest,
      digest: descriptor.digest,
      size: descriptor.size,
      platform: platformObject(platform),
    })),
  };
  const pushed = await client.pushManifest(repo, tag, index, MEDIA_TYPES.ociIndex);
  return result(
    repo,
    tag,
    pushed,
    Object.fromEntries(images.map(({ platform, descriptor }) => [platform, descriptor.digest])),
  );
}

function result(repo: string, tag: string, pushed: OciDescriptor, platforms: Record<string, string>): PushedTestImage {
  return {
    digest: pushed.digest,
    reference: `${repo}:${tag}`,
    digestReference: `${repo}@${pushed.digest}`,
    mediaType: pushed.mediaType,
    platforms,
  };
}

async function pushImage(
  client: OciClient,
  repo: string,
  seed: string,
  platform: string,
  labels: Readonly<Record<string, string>> | undefined,
): Promise<{ descriptor: OciDescriptor; bytes: Buffer }> {
  const content = seededBytes(`${seed}/${platform}`, 256);
  const tar = tarOf('edict-test-file', content);
  const layer = gzipSync(tar, { level: 9 });
  const layerDescriptor = await client.pushBlob(repo, layer);
  const { os, architecture, variant } = platformObject(platform);
  const config: JsonObject = {
    architecture,
    os,
    ...(variant ? { variant } : {}),
    created: '2026-01-01T00:00:00Z',
    config: { Labels: { 'org.opencontainers.image.title': 'edict-test', ...labels } },
    rootfs: { type: 'layers', diff_ids: [`sha256:${createHash('sha256').update(tar).digest('hex')}`] },
    history: [{ created: '2026-01-01T00:00:00Z', created_by: 'edict pushTestImage' }],
  };
  const configDescriptor = await client.pushBlob(repo, Buffer.from(JSON.stringify(config)));
  const manifest: JsonObject = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: configDescriptor.digest,
      size: configDescriptor.size,
    },
    layers: [
      {
        mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
        digest: layerDescriptor.digest,
        size: layerDescriptor.size,
      },
    ],
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  return { descriptor: await client.pushManifest(repo, digest, bytes, MEDIA_TYPES.ociManifest), bytes };
}

function platformObject(platform: string): { os: string; architecture: string; variant?: string } {
  const [os, architecture, variant] = platform.split('/');
  if (!os || !architecture)
    throw new Error(`pushTestImage: platform ${JSON.stringify(platform)} is not os/architecture[/variant]`);
  return { os, architecture, ...(variant ? { variant } : {}) };
}

/** Deterministic bytes from a seed (SHA-256 in counter mode). */
function seededBytes(seed: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) {
    blocks.push(createHash('sha256').update(`${seed}\u0000${i}`).digest());
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** A ustar archive with one regular file (fixed owner and time, so seeded images are reproducible). */
function tarOf(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const write = (text: string, offset: number, length: number) => header.write(text.slice(0, length), offset, 'ascii');
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0');
  write(name, 0, 100);
  write(octal(0o644, 8), 100, 8);
  write(octal(0, 8), 108, 8);
  write(octal(0, 8), 116, 8);
  write(octal(content.length, 12), 124, 12);
  write(octal(1767225600, 12), 136, 12);
  header.fill(' ', 148, 156);
  write('0', 156, 1);
  write('ustar', 257, 6);
  write('00', 263, 2);
  let checksum = 0;
  for (const byte of header) checksum += byte;
  write(`${octal(checksum, 7)}\0`, 148, 8);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}
