import { createHash } from 'node:crypto';
import type { JsonObject } from '@edict/foundation';
import type { OciDescriptor, OciManifest } from '../ports';
import type { OciWriter } from './oci-writer';

const INDEX = 'application/vnd.oci.image.index.v1+json';

/**
 * A registry in memory for specs: manifests by tag and digest, blobs by digest, referrers through
 * the OCI 1.1 fallback tag (`sha256-<hex>` holding an index), as on a registry without the
 * referrers API. `failing` makes every call throw, as a registry that is down.
 */
export class InMemoryOci implements OciWriter {
  private readonly manifests = new Map<string, OciManifest>();
  private readonly tags = new Map<string, string>();
  private readonly blobs = new Map<string, Uint8Array>();
  failing: Error | undefined;
  /** Calls made, for specs on caching (`getManifest repo ref`, ...). */
  readonly calls: string[] = [];

  async getManifest(repo: string, reference: string): Promise<OciManifest | undefined> {
    this.call(`getManifest ${repo} ${reference}`);
    const digest = reference.includes(':') ? reference : this.tags.get(`${repo}:${reference}`);
    const manifest = digest === undefined ? undefined : this.manifests.get(`${repo}@${digest}`);
    return manifest && { ...manifest, json: structuredClone(manifest.json) };
  }

  async resolve(repo: string, reference: string): Promise<OciDescriptor | undefined> {
    this.call(`resolve ${repo} ${reference}`);
    const digest = reference.includes(':') ? reference : this.tags.get(`${repo}:${reference}`);
    const manifest = digest === undefined ? undefined : this.manifests.get(`${repo}@${digest}`);
    return manifest && { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length };
  }

  async getBlob(repo: string, digest: string, maxBytes?: number): Promise<Uint8Array> {
    this.call(`getBlob ${repo} ${digest}`);
    const blob = this.blobs.get(`${repo}@${digest}`);
    if (!blob) throw new Error(`blob ${digest} not found in ${repo}`);
    if (maxBytes !== undefined && blob.length > maxBytes)
      throw new Error(`blob ${digest} is larger than ${maxBytes} bytes`);
    return blob;
  }

  async listReferrers(repo: string, digest: string, artifactType?: string): Promise<OciDescriptor[]> {
    this.call(`listReferrers ${repo} ${digest}`);
    const index = await this.getManifest(repo, fallbackTag(digest));
    const descriptors = ((index?.json.manifests ?? []) as unknown as OciDescriptor[]).map((d) => ({ ...d }));
    return artifactType === undefined ? descriptors : descriptors.filter((d) => d.artifactType === artifactType);
  }

  async pushBlob(repo: string, bytes: Uint8Array): Promise<OciDescriptor> {
    this.call(`pushBlob ${repo}`);
    const digest = sha256(bytes);
    this.blobs.set(`${repo}@${digest}`, bytes);
    return { mediaType: 'application/octet-stream', digest, size: bytes.length };
  }

  async pushManifest(
    repo: string,
    reference: string,
    manifest: JsonObject | Uint8Array,
    mediaType: string,
  ): Promise<OciDescriptor> {
    this.call(`pushManifest ${repo} ${reference}`);
    const bytes = manifest instanceof Uint8Array ? manifest : new TextEncoder().encode(JSON.stringify(manifest));
    const json = JSON.parse(new TextDecoder().decode(bytes)) as JsonObject;
    const digest = sha256(bytes);
    this.manifests.set(`${repo}@${digest}`, { digest, mediaType, bytes, json });
    if (!reference.includes(':')) this.tags.set(`${repo}:${reference}`, digest);
    else if (reference !== digest) throw new Error(`manifest digest ${digest} does not match ${reference}`);
    return { mediaType, digest, size: bytes.length };
  }

  async pushReferrer(
    repo: string,
    subjectDigest: string,
    manifest: JsonObject,
    mediaType: string,
  ): Promise<OciDescriptor> {
    const pushed = await this.pushManifest(repo, sha256Text(manifest), manifest, mediaType);
    const tag = fallbackTag(subjectDigest);
    const index = await this.getManifest(repo, tag);
    const manifests = (index?.json.manifests ?? []) as JsonObject[];
    const entry: JsonObject = { mediaType, digest: pushed.digest, size: pushed.size };
    if (typeof manifest.artifactType === 'string') entry.artifactType = manifest.artifactType;
    else if (typeof (manifest.config as JsonObject | undefined)?.mediaType === 'string')
      entry.artifactType = (manifest.config as JsonObject).mediaType;
    if (manifest.annotations) entry.annotations = manifest.annotations;
    await this.pushManifest(repo, tag, { schemaVersion: 2, mediaType: INDEX, manifests: [...manifests, entry] }, INDEX);
    return pushed;
  }

  /** Replaces a stored blob's bytes without changing its digest: a registry that serves tampered content. */
  tamperBlob(repo: string, digest: string, bytes: Uint8Array): void {
    this.blobs.set(`${repo}@${digest}`, bytes);
  }

  private call(text: string): void {
    this.calls.push(text);
    if (this.failing) throw this.failing;
  }
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function sha256Text(manifest: JsonObject): string {
  return sha256(new TextEncoder().encode(JSON.stringify(manifest)));
}

function fallbackTag(digest: string): string {
  return digest.replace(':', '-');
}
