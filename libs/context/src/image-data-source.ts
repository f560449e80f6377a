/**
 * Where `imageRegistry` context entries get an image's data (Kyverno's shape: image, resolvedImage,
 * registry, repository, identifier, manifest, configData). Injectable: the controller wires the OCI
 * registry client (registry-image-data.ts); `unavailableImageData` fails such rules closed.
 */
import type { ImageRegistryCredentials, OciAccessRequest, OciReader } from '@edict/engine';
import type { JsonObject } from '@edict/foundation';
import type { TrustedRootSource } from '@edict/image-verify';

export const IMAGE_DATA_SOURCE = Symbol('IMAGE_DATA_SOURCE');

export interface ImageDataSource {
  /**
   * The image's data, read with the entry's credentials (none given: the controller's default pull
   * Secrets); rejects when the registry cannot be read or the reference is refused.
   */
  imageData(reference: string, credentials?: ImageRegistryCredentials): Promise<JsonObject>;
  /**
   * A registry reader for verifyImages rules with an entry's credentials (none named: the
   * controller's default pull Secrets). Absent: such rules answer `error` (never admitted unverified).
   */
  oci?(access: OciAccessRequest): OciReader;
  /** Sigstore's trusted root the controller is configured with (TUF settings); undefined when none. */
  trustedRoot?(): Promise<TrustedRootSource | undefined>;
}

export class ImageDataUnavailableError extends Error {
  override readonly name = 'ImageDataUnavailableError';
}

/** The stand-in while no registry client is wired: every lookup fails, naming why. */
export const unavailableImageData: ImageDataSource = {
  imageData: (reference) =>
    Promise.reject(
      new ImageDataUnavailableError(
        `imageRegistry ${reference}: imageRegistry context entries need the registry client`,
      ),
    ),
};
