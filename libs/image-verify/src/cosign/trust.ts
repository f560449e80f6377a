/**
 * The policy's trust material, in the shape @sigstore/verify checks against: keys, certificate
 * authorities (keyless roots, a certificate's chain), Rekor and CT log keys, timestamp authorities,
 * or a Sigstore trusted root. Offline: nothing here reaches a network.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { X509Certificate } from '@sigstore/core';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, VerificationError, type TrustMaterial } from '@sigstore/verify';
import { errorMessage } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import type { CosignVerifier, VerifyOptions } from '../model';
import { parseCertificates, parsePublicKey } from './pem';

type CertAuthority = TrustMaterial['certificateAuthorities'][number];
type TLogAuthority = TrustMaterial['tlogs'][number];

const ALWAYS = { start: new Date(0), end: new Date(8_640_000_000_000_000) };
const HASH_ALGORITHMS = new Set(['sha224', 'sha256', 'sha384', 'sha512']);

/** How signatures are tied to the policy. */
export type SignerMode =
  | { kind: 'keys'; keys: KeyObject[] }
  /** A fixed certificate without chain: its public key verifies, as a key would. */
  | { kind: 'certificate-key'; certificate: X509Certificate; key: KeyObject }
  /** A fixed certificate checked against its chain (and SCT unless ignored). */
  | { kind: 'certificate'; certificate: X509Certificate }
  /** The signature's own certificate (Fulcio), checked against roots and identities. */
  | { kind: 'keyless'; roots: X509Certificate[]; authorities?: CertAuthority[] };

export interface CosignTrust {
  mode: SignerMode;
  hashAlgorithm: string;
  material: TrustMaterial;
  ignoreTlog: boolean;
  ignoreSCT: boolean;
  /** Whether RFC 3161 timestamps are checked (a TSA chain or the trusted root has authorities). */
  useTimestamps: boolean;
}

export async function buildTrust(verifier: CosignVerifier, options: VerifyOptions): Promise<CosignTrust> {
  const hashAlgorithm = verifier.hashAlgorithm ?? 'sha256';
  if (!HASH_ALGORITHMS.has(hashAlgorithm))
    throw new ImageVerificationError(`${String(hashAlgorithm)} is not one of sha224, sha256, sha384, sha512`, {
      field: 'hashAlgorithm',
    });
  const ignoreTlog = verifier.rekor?.ignoreTlog === true;
  const ignoreSCT = verifier.ctlog?.ignoreSCT === true;
  const root = await trustedRootMaterial(verifier, options);
  const mode = signerMode(verifier, root);
  const certificateBased = mode.kind === 'certificate' || mode.kind === 'keyless';

  const tlogs = verifier.rekor?.publicKey
    ? [logAuthority(verifier.rekor.publicKey, 'rekor.publicKey', verifier.rekor.url ?? '')]
    : (root?.tlogs ?? []);
  if (!ignoreTlog && tlogs.length === 0)
    throw new ImageVerificationError(
      'the Rekor public key is required to check the transparency log offline (or set rekor.ignoreTlog, or configure a trusted root)',
      { field: 'rekor.publicKey' },
    );
  const ctlogs = verifier.ctlog?.publicKey
    ? [logAuthority(verifier.ctlog.publicKey, 'ctlog.publicKey', '')]
    : (root?.ctlogs ?? []);
  if (certificateBased && !ignoreSCT && ctlogs.length === 0)
    throw new ImageVerificationError(
      'the CT log public key is required to check the certificate SCT offline (or set ctlog.ignoreSCT, or configure a trusted root)',
      { field: 'ctlog.publicKey' },
    );
  const timestampAuthorities = verifier.tsaCertChain
    ? [{ certChain: parseCertificates(verifier.tsaCertChain, 'tsaCertChain'), validFor: ALWAYS }]
    : (root?.timestampAuthorities ?? []);

  const certificateAuthorities: CertAuthority[] =
    mode.kind === 'keyless'
      ? (mode.authorities ?? [{ certChain: mode.roots, validFor: ALWAYS }])
      : mode.kind === 'certificate'
        ? [
            {
              certChain: parseCertificates(verifier.certificate?.certChain ?? '', 'certificate.certChain'),
              validFor: ALWAYS,
            },
          ]
        : [];
  const keys = mode.kind === 'keys' ? mode.keys : mode.kind === 'certificate-key' ? [mode.key] : [];
  const material: TrustMaterial = {
    certificateAuthorities,
    timestampAuthorities,
    tlogs,
    ctlogs,
    publicKey: (hint) => {
      const key = keys[Number(hint)];
      if (!key) throw new VerificationError({ code: 'PUBLIC_KEY_ERROR', message: `key not found: ${hint}` });
      return { publicKey: key, validFor: () => true };
    },
  };
  return {
    mode,
    hashAlgorithm,
    material,
    ignoreTlog,
    ignoreSCT,
    useTimestamps: timestampAuthorities.length > 0,
  };
}

function signerMode(verifier: CosignVerifier, root: TrustMaterial | undefined): SignerMode {
  if (verifier.publicKeys && verifier.publicKeys.length > 0)
    return { kind: 'keys', keys: verifier.publicKeys.map((pem, i) => parsePublicKey(pem, `publicKeys[${i}]`)) };
  const { cert, certChain } = verifier.certificate ?? {};
  if (cert) {
    const [certificate] = parseCertificates(cert, 'certificate.cert');
    if (!certChain) {
      const spki = createPublicKey({ key: certificate.publicKey, format: 'der', type: 'spki' });
      const key = parsePublicKey(spki.export({ format: 'pem', type: 'spki' }) as string, 'certificate.cert');
      return { kind: 'certificate-key', certificate, key };
    }
    return { kind: 'certificate', certificate };
  }
  // A chain alone is the roots signatures' own certificates must chain to (as Kyverno).
  if (certChain) return { kind: 'keyless', roots: parseCertificates(certChain, 'certificate.certChain') };
  if (verifier.keyless) {
    if (verifier.keyless.roots)
      return { kind: 'keyless', roots: parseCertificates(verifier.keyless.roots, 'keyless.roots') };
    const authorities = root?.certificateAuthorities ?? [];
    const roots = authorities.flatMap((ca) => ca.certChain);
    if (roots.length === 0)
      throw new ImageVerificationError(
        'keyless verification needs the Fulcio roots: give keyless.roots or configure a trusted root (Edict does not fetch Sigstore roots from the network)',
        { field: 'keyless.roots' },
      );
    return { kind: 'keyless', roots, authorities };
  }
  throw new ImageVerificationError('one of publicKeys, certificate or keyless is required', { field: 'cosign' });
}

async function trustedRootMaterial(
  verifier: CosignVerifier,
  options: VerifyOptions,
): Promise<TrustMaterial | undefined> {
  const source = verifier.trustedRoot;
  if (!source) return undefined;
  let json = source.trustedRootJson;
  if (json === undefined && source.tuf) {
    if (!options.resolveTrustedRoot)
      throw new ImageVerificationError('TUF trusted roots are not configured in this context', {
        field: 'trustedRoot.tuf',
      });
    try {
      json = await options.resolveTrustedRoot(source);
    } catch (error) {
      if (error instanceof ImageVerificationError) throw error;
      throw new ImageVerificationError(`could not load the trusted root: ${errorMessage(error)}`, {
        field: 'trustedRoot.tuf',
        cause: error,
      });
    }
  }
  if (json === undefined) return undefined;
  try {
    return toTrustMaterial(TrustedRoot.fromJSON(JSON.parse(json)));
  } catch (error) {
    throw new ImageVerificationError(`is not a Sigstore trusted root: ${errorMessage(error)}`, {
      field: 'trustedRoot',
    });
  }
}

/** A transparency or CT log known by its key alone: its log ID is the SHA-256 of the key's DER. */
function logAuthority(pem: string, field: string, baseURL: string): TLogAuthority {
  const publicKey = parsePublicKey(pem, field);
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { logID: createHash('sha256').update(der).digest(), baseURL, publicKey, validFor: ALWAYS };
}
