/**
 * What was signed, in @sigstore/verify's SignatureContent shape. `signature` is what an RFC 3161
 * timestamp covers (cosign: the raw signature of a simple-signing payload, the whole envelope of
 * an attestation); `compareSignature`/`compareDigest` match a Rekor entry's body.
 */
import { constants, createHash, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { dsse } from '@sigstore/core';

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** cosign's key signatures: ECDSA (DER) and RSA over the `hash` of the data, Ed25519 over the data. */
export function verifyWithKey(data: Buffer, key: KeyObject, signature: Buffer, hash: string): boolean {
  try {
    switch (key.asymmetricKeyType) {
      case 'ed25519':
        return verify(null, data, key, signature);
      case 'rsa':
        // PKCS#1 v1.5 is cosign's default; PSS is what sigstore's RSA PSS verifier accepts.
        return (
          verify(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature) ||
          verify(
            hash,
            data,
            { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
            signature,
          )
        );
      case 'rsa-pss':
        return verify(hash, data, { key, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
      default:
        return verify(hash, data, key, signature);
    }
  } catch {
    return false;
  }
}

export class SimpleSigningContent {
  constructor(
    readonly signature: Buffer,
    private readonly payload: Buffer,
    private readonly hash: string,
  ) {}

  compareSignature(signature: Buffer): boolean {
    return equal(signature, this.signature);
  }

  compareDigest(digest: Buffer): boolean {
    return equal(digest, createHash(this.hash).update(this.payload).digest());
  }

  verifySignature(key: KeyObject): boolean {
    return verifyWithKey(this.payload, key, this.signature, this.hash);
  }
}

export class DsseContent {
  constructor(
    /** What a cosign attestation's RFC 3161 timestamp covers: the envelope as stored. */
    readonly signature: Buffer,
    private readonly payloadType: string,
    private readonly payload: Buffer,
    private readonly sig: Buffer,
    private readonly hash: string,
  ) {}

  compareSignature(signature: Buffer): boolean {
    return equal(signature, this.sig);
  }

  compareDigest(digest: Buffer): boolean {
    return equal(digest, createHash('sha256').update(this.payload).digest());
  }

  verifySignature(key: KeyObject): boolean {
    return verifyWithKey(dsse.preAuthEncoding(this.payloadType, this.payload), key, this.sig, this.hash);
  }
}
