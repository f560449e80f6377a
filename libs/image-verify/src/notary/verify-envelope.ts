/**
 * notation's verification of one signature envelope at Kyverno's trust policy (level strict, trust
 * store `ca:kyverno` with the policy's certs, `tsa:kyverno` with its tsaCerts, any identity):
 * integrity (signature with the signing certificate, algorithm matching its key, chain rules),
 * authenticity (a certificate of the chain in the trust store), expiry, authentic timestamp,
 * revocation (refused when it would need the network), then the payload naming the artifact.
 */
import { constants, verify as cryptoVerify } from 'node:crypto';
import type { JsonObject } from '@edict/foundation';
import type { OciDescriptor } from '../ports';
import {
  CertificateChainError,
  algorithmForKey,
  parseCertificate,
  publicKeyOf,
  revocationEndpoints,
  sameCertificate,
  validAt,
  validateSigningChain,
  type ParsedCertificate,
} from './cert-chain';
import { ALGORITHM_HASH, SCHEME_SIGNING_AUTHORITY, SCHEME_X509 } from './constants';
import type { NotationEnvelope } from './envelope';
import { verifyTimestampToken } from './timestamp';

export interface NotaryTrust {
  /** Trust store of type CA (Kyverno's `certs`). */
  ca: ParsedCertificate[];
  /** Trust store of type TSA (Kyverno's `tsaCerts`); when present, a timestamp is required. */
  tsa: ParsedCertificate[];
}

export interface EnvelopeVerified {
  payload: JsonObject;
  signer: ParsedCertificate;
  signingTime: Date;
}

/** Why a signature does not verify (the reason a policy shows). */
export class NotarySignatureError extends Error {
  override readonly name = 'NotarySignatureError';
}

export function verifyEnvelope(
  envelope: NotationEnvelope,
  target: OciDescriptor,
  trust: NotaryTrust,
  now: Date,
): EnvelopeVerified {
  // Integrity.
  const chain = envelope.certChain.map((der, i) => parseCertificate(der, `certificate ${i} of the signature's chain`));
  const signer = chain[0];
  const key = publicKeyOf(signer);
  const keyAlgorithm = algorithmForKey(key);
  if (!keyAlgorithm)
    throw new NotarySignatureError(
      `signing certificate key (${key.asymmetricKeyType}) is not a supported RSA or EC key size`,
    );
  if (keyAlgorithm !== envelope.algorithm) {
    throw new NotarySignatureError(
      `mismatch between signature algorithm derived from signing certificate (${keyAlgorithm}) and signing algorithm specified (${envelope.algorithm})`,
    );
  }
  const hash = ALGORITHM_HASH[envelope.algorithm];
  const verified = envelope.algorithm.startsWith('PS')
    ? cryptoVerify(
        hash,
        envelope.signingInput,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        envelope.signature,
      )
    : cryptoVerify(hash, envelope.signingInput, { key, dsaEncoding: 'ieee-p1363' }, envelope.signature);
  if (!verified)
    throw new NotarySignatureError('signature is not produced by the signing certificate: integrity check failed');
  try {
    validateSigningChain(chain, envelope.signingScheme === SCHEME_SIGNING_AUTHORITY ? envelope.signingTime : undefined);
  } catch (error) {
    throw new NotarySignatureError((error as Error).message);
  }

  // Authenticity: Kyverno's trust policy names only CA and TSA stores.
  if (envelope.signingScheme === SCHEME_SIGNING_AUTHORITY) {
    throw new NotarySignatureError(
      `signing scheme ${SCHEME_SIGNING_AUTHORITY} needs a signingAuthority trust store, which the notary attestor does not configure (only certs and tsaCerts)`,
    );
  }
  if (!chain.some((cert) => trust.ca.some((trusted) => sameCertificate(trusted, cert)))) {
    throw new NotarySignatureError(
      'signature is not produced by a trusted signer: no certificate of its chain is in the trust store (certs)',
    );
  }

  // Expiry.
  if (envelope.expiry && now >= envelope.expiry) {
    throw new NotarySignatureError(`digital signature has expired on ${envelope.expiry.toISOString()}`);
  }

  // Authentic timestamp (scheme notary.x509).
  let signingTime = envelope.signingTime;
  if (envelope.signingScheme === SCHEME_X509 && trust.tsa.length > 0) {
    if (!envelope.timestampToken)
      throw new NotarySignatureError(
        'no timestamp countersignature was found in the signature envelope, and tsaCerts require one',
      );
    try {
      signingTime = verifyTimestampToken(envelope.timestampToken, envelope.signature, trust.tsa);
    } catch (error) {
      if (!(error instanceof CertificateChainError)) throw error;
      throw new NotarySignatureError(error.message);
    }
    for (const cert of chain) {
      if (!validAt(cert, signingTime)) {
        throw new NotarySignatureError(
          `timestamp ${signingTime.toISOString()} is outside the validity period of certificate "${cert.subject}"`,
        );
      }
    }
  } else {
    for (const cert of chain) {
      if (now < new Date(cert.x509.validFrom)) {
        throw new NotarySignatureError(
          `verification time is before certificate "${cert.subject}" validity period, it will be valid from ${cert.x509.validFrom}`,
        );
      }
      if (now > new Date(cert.x509.validTo)) {
        throw new NotarySignatureError(
          `certificate "${cert.subject}" is not valid anymore, it was expired at ${cert.x509.validTo}`,
        );
      }
    }
  }

  // Revocation: notation asks OCSP/CRL endpoints; offline, their status is unknown, which strict refuses.
  for (const cert of chain.slice(0, -1)) {
    const endpoints = revocationEndpoints(cert);
    if (endpoints.length > 0) {
      throw new NotarySignatureError(
        `revocation status of certificate "${cert.subject}" is unknown: it names ${endpoints.join(' and ')}, which image verification does not reach`,
      );
    }
  }

  // The payload must name the image's manifest.
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(envelope.payload));
  } catch {
    throw new NotarySignatureError('signature payload is not JSON');
  }
  const artifact = (payload as JsonObject | null)?.targetArtifact as JsonObject | undefined;
  if (typeof artifact !== 'object' || artifact === null || Array.isArray(artifact)) {
    throw new NotarySignatureError('signature payload has no targetArtifact');
  }
  if (artifact.mediaType !== target.mediaType || artifact.digest !== target.digest || artifact.size !== target.size) {
    throw new NotarySignatureError(
      `integrity check failed: the signature is for ${String(artifact.digest)} (${String(artifact.mediaType)}, ${String(artifact.size)} bytes), not ${target.digest} (${target.mediaType}, ${target.size} bytes)`,
    );
  }
  return { payload: payload as JsonObject, signer, signingTime };
}
