/**
 * The entry points: one verifier spec, one image, dispatched on the verifier's type. Successful
 * results are remembered in the optional cache, keyed by the image as written and the whole spec
 * (its hash).
 */
import { cloneJson, type JsonObject } from '@edict/foundation';
import { verifyCosignAttestations, verifyCosignSignatures } from './cosign';
import { verifyNotaryAttestations, verifyNotarySignatures } from './notary';
import { verifyBundleAttestations, verifyBundleSignatures } from './sigstore-bundle';
import { VerificationCache } from './cache/verification-cache';
import { ImageVerificationError } from './errors';
import type { AttestationVerification, SignatureVerification, VerifierSpec, VerifyOptions } from './model';
import type { OciReader } from './ports';

export async function verifyImageSignatures(
  oci: OciReader,
  image: string,
  verifier: VerifierSpec,
  options: VerifyOptions = {},
): Promise<SignatureVerification> {
  return cached(options, ['signatures', image], verifier, () => {
    if (verifier.type === 'cosign' && !verifier.bundle) return verifyCosignSignatures(oci, image, verifier, options);
    if (verifier.type === 'cosign') return verifyBundleSignatures(oci, image, verifier, options);
    if (verifier.type === 'notary') return verifyNotarySignatures(oci, image, verifier, options);
    throw notBuilt(verifier);
  });
}

export async function verifyImageAttestations(
  oci: OciReader,
  image: string,
  predicateType: string,
  verifier: VerifierSpec,
  options: VerifyOptions = {},
): Promise<AttestationVerification> {
  return cached(options, ['attestations', image, predicateType], verifier, () => {
    if (verifier.type === 'cosign' && !verifier.bundle)
      return verifyCosignAttestations(oci, image, predicateType, verifier, options);
    if (verifier.type === 'cosign') return verifyBundleAttestations(oci, image, predicateType, verifier, options);
    if (verifier.type === 'notary') return verifyNotaryAttestations(oci, image, predicateType, verifier, options);
    throw notBuilt(verifier);
  });
}

/**
 * Each verifier's share of the cache key, hashed once per spec object: callers that keep their
 * specs (a compiled rule's) do not serialise the trust material again for every image. A spec is
 * not changed once it has been used.
 */
const specKeys = new WeakMap<VerifierSpec, string>();

function specKey(verifier: VerifierSpec): string {
  let key = specKeys.get(verifier);
  if (key === undefined) {
    key = VerificationCache.key(verifier);
    specKeys.set(verifier, key);
  }
  return key;
}

async function cached<T extends { verified: boolean }>(
  options: VerifyOptions,
  parts: string[],
  verifier: VerifierSpec,
  run: () => Promise<T>,
): Promise<T> {
  const cache = options.cache;
  const key = cache ? JSON.stringify([...parts, specKey(verifier)]) : '';
  const hit = cache?.get<T>(key);
  if (hit) return cloneJson(hit as unknown as JsonObject) as unknown as T;
  const result = await run();
  // Only successes are remembered (as Kyverno): a failure is retried, the signature may appear.
  if (cache && result.verified) cache.set(key, cloneJson(result as unknown as JsonObject));
  return result;
}

function notBuilt(verifier: VerifierSpec): ImageVerificationError {
  const kind =
    verifier.type === 'cosign'
      ? 'Sigstore bundle'
      : verifier.type === 'notary'
        ? 'Notary'
        : String((verifier as { type: unknown }).type);
  return new ImageVerificationError(`${kind} verification is not built yet`, { field: 'type' });
}
