/**
 * The OCI read/write surface image verification uses: manifests, blobs and referrers (OCI
 * distribution 1.1, with the `sha256-<hex>` fallback tag for registries without the referrers API),
 * and the pushes tests and the signing tool need. `repo` is always `registry/repository`
 * (`127.0.0.1:5000/team/app`, `docker.io/library/nginx`).
 */
import type { JsonObject } from '@edict/foundation';
import type { DockerConfig } from '../auth/docker-config';

/** Who calls a registry: the docker config Secrets (best first) and Kyverno's `allowInsecureRegistry`. */
export interface OciAccess {
  readonly dockerConfigs?: readonly DockerConfig[];
  /** No TLS verification, and plain HTTP as a fallback (`imageRegistryCredentials.allowInsecureRegistry`). */
  readonly allowInsecure?: boolean;
}

export interface OciPlatform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
  readonly 'os.version'?: string;
  readonly 'os.features'?: string[];
}

/** An OCI content descriptor. */
export interface OciDescriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly artifactType?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly platform?: OciPlatform;
}

/** A manifest (image, index or artifact) as the registry served it, its digest verified. */
export interface OciManifest {
  readonly digest: string;
  readonly mediaType: string;
  /** The exact bytes (signatures are over these). */
  readonly bytes: Uint8Array;
  readonly json: JsonObject;
}

/** What image verification reads (image-verify's `OciReader` has the same shape). */
export interface OciReaderSurface {
  /** Tag or digest -> manifest; undefined on 404. The digest is verified. */
  getManifest(repo: string, reference: string, accept?: readonly string[]): Promise<OciManifest | undefined>;
  /** HEAD (GET as a fallback) -> digest, media type and size; undefined on 404. */
  resolve(repo: string, reference: string): Promise<OciDescriptor | undefined>;
  /** The blob, digest verified, at most `maxBytes` (default: the client's maxBlobBytes). 404 -> ImageNotFoundError. */
  getBlob(repo: string, digest: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * Manifests whose `subject` is `digest`: the OCI referrers API, else the fallback tag schema
   * (`sha256-<hex>` holding an image index). Filtered by `artifactType` when given.
   */
  listReferrers(repo: string, digest: string, artifactType?: string): Promise<OciDescriptor[]>;
}

export interface OciClient extends OciReaderSurface {
  /** Uploads a blob (skipped when the registry has it already). */
  pushBlob(repo: string, bytes: Uint8Array): Promise<OciDescriptor>;
  /** PUTs a manifest under a tag or its digest; returns its descriptor (digest checked against the registry's). */
  pushManifest(
    repo: string,
    reference: string,
    manifest: JsonObject | Uint8Array,
    mediaType: string,
  ): Promise<OciDescriptor>;
  /**
   * Pushes a manifest that refers to `subjectDigest` (its `subject` is filled in when missing) by
   * digest, and, unless the registry indexes subjects itself (`OCI-Subject`), adds its descriptor to
   * the fallback tag's index (read-modify-write; pushing the same manifest twice changes nothing).
   */
  pushReferrer(repo: string, subjectDigest: string, manifest: JsonObject, mediaType: string): Promise<OciDescriptor>;
}
