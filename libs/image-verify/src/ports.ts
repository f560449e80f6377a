/**
 * The registry as image verification needs it (consumer-owned port). `@edict/registry`'s OciClient
 * satisfies it structurally; specs use the in-memory fake of `@edict/image-verify/testing`.
 * `repo` is always `registry/repository` (e.g. `docker.io/library/nginx`, `127.0.0.1:5000/app`).
 */
import type { JsonObject } from '@edict/foundation';

export interface OciDescriptor {
  mediaType: string;
  /** `sha256:<hex>` */
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
  platform?: { architecture: string; os: string; variant?: string; 'os.version'?: string; 'os.features'?: string[] };
}

export interface OciManifest {
  /** Digest of `bytes` (verified by the reader). */
  digest: string;
  mediaType: string;
  /** The manifest exactly as the registry served it. */
  bytes: Uint8Array;
  json: JsonObject;
}

export interface OciReader {
  /** Tag or digest -> manifest; undefined when the registry answers 404. Digest verified. */
  getManifest(repo: string, reference: string, accept?: readonly string[]): Promise<OciManifest | undefined>;
  /** Tag or digest -> the manifest's descriptor (digest + mediaType); undefined on 404. */
  resolve(repo: string, reference: string): Promise<OciDescriptor | undefined>;
  /** A blob, its digest verified; throws when larger than `maxBytes`. */
  getBlob(repo: string, digest: string, maxBytes?: number): Promise<Uint8Array>;
  /** Manifests whose `subject` is `digest` (referrers API or the `sha256-<hex>` fallback tag). */
  listReferrers(repo: string, digest: string, artifactType?: string): Promise<OciDescriptor[]>;
}
