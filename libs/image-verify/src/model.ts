/**
 * One neutral model of image verification: classic `verifyImages` rules and ImageValidatingPolicies
 * both translate their attestors into a VerifierSpec and call verifyImageSignatures /
 * verifyImageAttestations (verify.ts).
 */
import { errorMessage, parseImageReference, type JsonObject } from '@edict/foundation';
import type { VerificationCache } from './cache/verification-cache';
import { ImageVerificationError } from './errors';

export interface ImageRef {
  /** The reference as written in the resource or policy. */
  image: string;
  /** `docker.io` for Docker Hub (`index.docker.io` is folded into it). */
  registry: string;
  /** Path inside the registry, Docker Hub's official images under `library/`. */
  repository: string;
  /** `registry/repository`: what OciReader calls `repo`. */
  repo: string;
  /** `latest` when neither tag nor digest is written. */
  tag?: string;
  digest?: string;
}

/**
 * Parses an image reference with Docker's normalisation (`nginx` -> `docker.io/library/nginx:latest`).
 * Throws ImageVerificationError (field `image`) for references that are not valid.
 */
export function parseImageRef(image: string): ImageRef {
  let info;
  try {
    info = parseImageReference(image);
  } catch (error) {
    throw new ImageVerificationError(`invalid image reference ${JSON.stringify(image)}: ${errorMessage(error)}`, {
      field: 'image',
    });
  }
  let registry = info.registry ?? 'docker.io';
  if (registry === 'index.docker.io') registry = 'docker.io';
  const repository = registry === 'docker.io' && !info.path.includes('/') ? `library/${info.path}` : info.path;
  const ref: ImageRef = { image, registry, repository, repo: `${registry}/${repository}` };
  if (info.tag !== undefined && !(info.digest !== undefined && !hasWrittenTag(image))) ref.tag = info.tag;
  if (info.digest !== undefined) ref.digest = info.digest;
  return ref;
}

function hasWrittenTag(image: string): boolean {
  const name = image.split('@')[0];
  return name.lastIndexOf(':') > name.lastIndexOf('/');
}

/** Where keyless verification finds Sigstore's roots when the policy gives none (Kyverno's `tuf`/trusted root). */
export interface TrustedRootSource {
  /** A Sigstore `trusted_root.json` document (protobuf-specs TrustedRoot, JSON form). */
  trustedRootJson?: string;
  /** A TUF repository holding the trusted root: `mirror` URL, initial `root` (JSON or base64 of it). */
  tuf?: { mirror?: string; root?: string };
}

export type VerifierSpec = CosignVerifier | NotaryVerifier;

export interface KeylessIdentity {
  subject?: string;
  /** Go RE2 syntax, unanchored as in cosign (`^...$` to anchor). */
  subjectRegExp?: string;
  issuer?: string;
  issuerRegExp?: string;
}

export interface CosignVerifier {
  type: 'cosign';
  /** PEM public keys (ECDSA P-256/384/521, RSA, Ed25519); any one verifying is enough. */
  publicKeys?: string[];
  /** Digest the signature was made over with a key (cosign's `--signature-digest-algorithm`, default sha256). */
  hashAlgorithm?: 'sha224' | 'sha256' | 'sha384' | 'sha512';
  /** A fixed signing certificate (and its chain to a root) instead of a key. */
  certificate?: { cert?: string; certChain?: string };
  /** Fulcio certificates: the identities they must carry, the roots they chain to. */
  keyless?: {
    identities: KeylessIdentity[];
    /** PEM roots (and intermediates) for the Fulcio chain; else the trusted root. */
    roots?: string;
    /** Fulcio extension name (e.g. `githubWorkflowRepository`) or OID -> exact value required. */
    extensions?: Record<string, string>;
    /**
     * Kyverno's classic verifyImages: `subject` and `issuer` are wildcards (`*`, `?`) matched against
     * the certificate's subject and issuer (cosign, and ImageValidatingPolicy, compare them exactly).
     */
    wildcards?: boolean;
  };
  /** Repository holding `.sig`/`.att` (cosign's COSIGN_REPOSITORY), `registry/repository` form accepted. */
  signatureRepository?: string;
  /**
   * Look for the signature as an OCI 1.1 referrer of the image first (cosign's OCI 1.1 layout,
   * Kyverno's `cosignOCI11`), then in the `.sig` tag.
   */
  oci11?: boolean;
  /** Required in the simple-signing payload's `optional` map. */
  annotations?: Record<string, string>;
  rekor: { ignoreTlog: boolean; publicKey?: string; url?: string };
  ctlog: { ignoreSCT: boolean; publicKey?: string };
  /** PEM chain of the timestamp authority whose RFC 3161 timestamps are accepted. */
  tsaCertChain?: string;
  /** Keyless without custom roots: Sigstore's trusted root from a configured source. */
  trustedRoot?: TrustedRootSource;
  /** Kyverno's type SigstoreBundle: Sigstore bundles attached as OCI referrers. */
  bundle?: boolean;
  /**
   * Sigstore bundles: whether a certificate's SCTs are required and checked unless `ctlog.ignoreSCT`,
   * as cosign's bundle verification does (ImageValidatingPolicy). Kyverno's classic SigstoreBundle
   * verifier asks for none (false). Default true.
   */
  bundleScts?: boolean;
}

export interface NotaryVerifier {
  type: 'notary';
  /** PEM certificates trusted as roots of notation signing chains. */
  certs: string;
  tsaCerts?: string;
  signatureRepository?: string;
}

export interface VerifyOptions {
  /** Epoch ms; certificate validity without a trusted timestamp is checked at this time. */
  now?: () => number;
  /** Results of successful verifications are remembered here (Kyverno's `useCache`). */
  cache?: VerificationCache;
  /** Epoch ms after which registry work stops with ImageVerificationError. */
  deadline?: number;
}

export interface VerifiedSignature {
  /** What verified it: `key[0]`, `certificate`, `keyless`... */
  verifier: string;
  /** Certificate identity (SAN) of keyless or certificate signatures. */
  subject?: string;
  issuer?: string;
  /** The signed payload (simple signing for cosign). */
  payload?: JsonObject;
}

export interface SignatureVerification {
  verified: boolean;
  /** `sha256:...` of the image manifest that was verified. */
  digest: string;
  /** Why not verified (Kyverno-like text); absent when verified. */
  reason?: string;
  signatures: VerifiedSignature[];
}

export interface AttestationVerification {
  verified: boolean;
  digest: string;
  reason?: string;
  /** Verified in-toto statements whose predicateType matched (predicate included). */
  statements: JsonObject[];
}
