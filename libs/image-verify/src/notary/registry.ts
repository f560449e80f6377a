/**
 * Registry reads shared by the Notary and Sigstore bundle verifiers: the image's manifest
 * descriptor, its referrers (capped), and one-layer referrer manifests, all bounded and under the
 * caller's deadline. A registry failure is an ImageVerificationError (the failure policy decides).
 */
import { errorMessage, type JsonObject } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import { parseImageRef, type ImageRef, type VerifyOptions } from '../model';
import type { OciDescriptor, OciManifest, OciReader } from '../ports';

export interface ImageTarget {
  ref: ImageRef;
  /** The image manifest as signed: mediaType, digest, size. */
  descriptor: OciDescriptor;
}

export class RegistryAccess {
  constructor(
    private readonly oci: OciReader,
    private readonly options: VerifyOptions,
  ) {}

  async target(image: string): Promise<ImageTarget> {
    const ref = parseImageRef(image);
    const reference = ref.digest ?? ref.tag ?? 'latest';
    const descriptor = await this.call(`resolve ${ref.repo}:${reference}`, () => this.oci.resolve(ref.repo, reference));
    if (!descriptor) throw new ImageVerificationError(`image ${image} not found in the registry`, { field: 'image' });
    if (ref.digest && descriptor.digest !== ref.digest) {
      throw new ImageVerificationError(`registry answered digest ${descriptor.digest} for ${image}`);
    }
    return { ref, descriptor };
  }

  /** Referrers of `digest` with the artifact type (all when undefined), at most `max` of them. */
  async referrers(
    repo: string,
    digest: string,
    artifactType: string | undefined,
    max: number,
  ): Promise<OciDescriptor[]> {
    const all = await this.call(`list referrers of ${repo}@${digest}`, () => this.oci.listReferrers(repo, digest));
    if (all.length > max) {
      throw new ImageVerificationError(`failed to fetch referrers: too many referrers found, max limit is ${max}`);
    }
    return artifactType === undefined ? all : all.filter((d) => d.artifactType === artifactType);
  }

  async manifest(repo: string, digest: string): Promise<OciManifest> {
    const manifest = await this.call(`fetch manifest ${repo}@${digest}`, () => this.oci.getManifest(repo, digest));
    if (!manifest) throw new ImageVerificationError(`manifest ${repo}@${digest} not found`);
    return manifest;
  }

  /** The single layer of a referrer manifest (signature envelope, bundle, attestation payload). */
  async onlyLayer(
    repo: string,
    manifest: OciManifest,
    maxBytes: number,
  ): Promise<{ descriptor: OciDescriptor; bytes: Uint8Array }> {
    const layers = manifest.json.layers;
    if (!Array.isArray(layers) || layers.length !== 1) {
      throw new LayerError(
        `referrer ${manifest.digest} must have exactly one layer, found ${Array.isArray(layers) ? layers.length : 0}`,
      );
    }
    const layer = layers[0] as JsonObject;
    if (typeof layer.digest !== 'string' || typeof layer.mediaType !== 'string' || typeof layer.size !== 'number') {
      throw new LayerError(`referrer ${manifest.digest} has a malformed layer descriptor`);
    }
    if (layer.size > maxBytes)
      throw new LayerError(`layer size ${layer.size} exceeds ${maxBytes} for digest ${layer.digest}`);
    const bytes = await this.blob(repo, layer.digest, maxBytes);
    return { descriptor: { mediaType: layer.mediaType, digest: layer.digest, size: layer.size }, bytes };
  }

  async blob(repo: string, digest: string, maxBytes: number): Promise<Uint8Array> {
    return this.call(`fetch blob ${repo}@${digest}`, () => this.oci.getBlob(repo, digest, maxBytes));
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    const now = this.options.now?.() ?? Date.now();
    if (this.options.deadline !== undefined && now > this.options.deadline) {
      throw new ImageVerificationError(`image verification ran out of time before it could ${what}`);
    }
    try {
      return await run();
    } catch (error) {
      if (error instanceof ImageVerificationError) throw error;
      throw new ImageVerificationError(`failed to ${what}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

/** A referrer whose content is not what its kind requires: that signature does not verify. */
export class LayerError extends Error {
  override readonly name = 'LayerError';
}
