/**
 * The pure half of TUF: a Sigstore `trusted_root.json` (fetched and verified through TUF by the
 * caller, see libs/context's TufTrustedRootProvider, or given inline) parsed into the trust
 * material @sigstore/verify checks bundles against. Parsed roots are remembered by their text.
 */
import { createHash } from 'node:crypto';
import { BoundedCache, errorMessage } from '@edict/foundation';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, type TrustMaterial } from '@sigstore/verify';
import { ImageVerificationError } from '../errors';
import type { TrustedRootSource } from '../model';

const TRUSTED_ROOT_MEDIA_TYPE = /^application\/vnd\.dev\.sigstore\.trustedroot(\.v0\.\d+)?\+json(;version=0\.\d+)?$/;
const MAX_TRUSTED_ROOT_BYTES = 1_000_000;
const parsed = new BoundedCache<TrustedRoot>(16);

/**
 * The trusted root a verifier uses. A TUF repository alone (`tuf` without `trustedRootJson`) is
 * refused: fetching it is I/O, done by the caller before verification.
 */
export function trustedRootOf(source: TrustedRootSource | undefined, field = 'trustedRoot'): TrustedRoot | undefined {
  if (!source) return undefined;
  if (source.trustedRootJson === undefined) {
    if (source.tuf) {
      throw new ImageVerificationError(
        'the TUF repository must be resolved to a trusted_root.json before verification (configure the TUF root provider)',
        { field },
      );
    }
    return undefined;
  }
  return parseTrustedRoot(source.trustedRootJson, field);
}

export function parseTrustedRoot(json: string, field = 'trustedRoot'): TrustedRoot {
  if (json.length > MAX_TRUSTED_ROOT_BYTES)
    throw new ImageVerificationError(`trusted root is larger than ${MAX_TRUSTED_ROOT_BYTES} bytes`, { field });
  const key = createHash('sha256').update(json).digest('hex');
  const hit = parsed.get(key);
  if (hit) return hit;
  let root: TrustedRoot;
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    const mediaType = (value as { mediaType?: unknown }).mediaType;
    if (typeof mediaType !== 'string' || !TRUSTED_ROOT_MEDIA_TYPE.test(mediaType)) {
      throw new Error(`mediaType ${JSON.stringify(mediaType)} is not a Sigstore trusted root`);
    }
    root = TrustedRoot.fromJSON(value);
    // Parse every key and certificate now, so bad material is named here rather than mid-verification.
    toTrustMaterial(root);
  } catch (error) {
    throw new ImageVerificationError(`invalid trusted root: ${errorMessage(error)}`, { field });
  }
  parsed.set(key, root);
  return root;
}

export function trustMaterialOf(root: TrustedRoot, keys?: Parameters<typeof toTrustMaterial>[1]): TrustMaterial {
  return toTrustMaterial(root, keys);
}
