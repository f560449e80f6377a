import { ImageVerificationError } from '../errors';
import type { CosignVerifier } from '../model';
import { checkIdentities } from './identity';

/** The parts of a Cosign verifier checked before any work: shapes a translator may get wrong. */
export function checkKeylessSpec(verifier: CosignVerifier): void {
  if (verifier.rekor === undefined || verifier.ctlog === undefined)
    throw new ImageVerificationError('rekor and ctlog settings are required', { field: 'cosign' });
  if (verifier.keyless) {
    if (!Array.isArray(verifier.keyless.identities))
      throw new ImageVerificationError('must be a list', { field: 'keyless.identities' });
    checkIdentities(verifier.keyless.identities);
  }
}
