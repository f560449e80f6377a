/**
 * `image.GetMetadata` of Kyverno's CEL policies from the registry client (the controller's pull
 * Secrets, its egress guard), in the shape Kyverno's image data loader gives CEL: `image`,
 * `resolvedImage` (`registry/repository[:tag]@digest`), `registry`, `repository`, `identifier`,
 * `tag` or `digest`, `manifest` and `config`. Not given: `imageIndex` (the registry client answers
 * the platform's image manifest, not the index above it).
 */
import type { CelImageDataPort } from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import type { ImageDataSource } from './image-data-source';

const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

export class RegistryCelImageDataPort implements CelImageDataPort {
  constructor(private readonly images: ImageDataSource) {}

  async get(reference: string): Promise<JsonObject> {
    const data = await this.images.imageData(reference);
    const registry = String(data.registry ?? '');
    const repository = String(data.repository ?? '');
    const identifier = String(data.identifier ?? '');
    const byDigest = DIGEST.test(identifier);
    const resolved = String(data.resolvedImage ?? '');
    const digest = byDigest ? identifier : resolved.slice(resolved.lastIndexOf('@') + 1);
    const tag = byDigest ? '' : identifier;
    const name = `${registry}/${repository}`;
    const out: JsonObject = {
      image: String(data.image ?? reference),
      resolvedImage: tag ? `${name}:${tag}@${digest}` : `${name}@${digest}`,
      registry,
      repository,
      identifier,
      ...(tag ? { tag } : {}),
      ...(digest ? { digest } : {}),
      manifest: data.manifest ?? null,
      config: data.configData ?? null,
    };
    return out;
  }
}
