import type { JsonObject } from '@edict/foundation';
import type { OciDescriptor, OciReader } from '../ports';

/** What the test signers push with; `@edict/registry`'s OciClient satisfies it structurally. */
export interface OciWriter extends OciReader {
  pushBlob(repo: string, bytes: Uint8Array): Promise<OciDescriptor>;
  pushManifest(
    repo: string,
    reference: string,
    manifest: JsonObject | Uint8Array,
    mediaType: string,
  ): Promise<OciDescriptor>;
  /** Pushes `manifest` (which names `subjectDigest` as its subject) so listReferrers finds it. */
  pushReferrer(repo: string, subjectDigest: string, manifest: JsonObject, mediaType: string): Promise<OciDescriptor>;
}
