import type { CosignVerifier, NotaryVerifier, TrustedRootSource, VerifierSpec } from '@edict/image-verify';
import type { ResourceLoader } from '../core/loaders';
import { decodeStdBase64 } from '../validate/manifests/base64';
import type { Attestor, CertificateLog, ImageVerification, TransparencyLog } from './spec';

/** Kyverno's default transparency log when an attestor names none. */
export const PUBLIC_REKOR_URL = 'https://rekor.sigstore.dev';

/** A setting Edict cannot honour (yet): the entry fails closed with this message, as an error. */
export class UnsupportedAttestorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedAttestorError';
  }
}

/** The controller's Sigstore trusted root (undefined when none is configured). */
export type TrustedRootLoader = () => Promise<TrustedRootSource | undefined>;

/** Where keys referenced by Secret are read, and which namespace a namespaced Policy is kept to. */
export interface SecretAccess {
  readonly resources?: ResourceLoader;
  /** Set for a namespaced Policy: a key Secret must live in this namespace. */
  readonly policyNamespace?: string;
}

/**
 * One attestor entry as image-verify's neutral verifier, as Kyverno's buildCosignVerifier and
 * buildNotaryVerifier build their options. Returns the path suffix Kyverno puts in messages
 * (`.keys`, `.certificates`, `.keyless`). Throws UnsupportedAttestorError for what Edict does not
 * run (KMS keys, cloud credential helpers) and for unreadable key Secrets.
 */
export async function verifierFor(
  attestor: Attestor,
  verification: ImageVerification,
  forAttestation: boolean,
  secrets: SecretAccess,
  trustedRoot?: TrustedRootLoader,
): Promise<BuiltVerifier> {
  return withTrustedRoot(await entryVerifier(attestor, verification, forAttestation, secrets), trustedRoot);
}

export interface BuiltVerifier {
  readonly spec: VerifierSpec;
  readonly path: string;
}

/**
 * `built` with the controller's current trusted root filled in where the entry leaves it out (see
 * rootedVerifier); the entry's own verifier is kept (and may be memoised by the caller).
 */
export async function withTrustedRoot(built: BuiltVerifier, trustedRoot?: TrustedRootLoader): Promise<BuiltVerifier> {
  const spec = await rootedVerifier(built.spec, trustedRoot);
  return spec === built.spec ? built : { spec, path: built.path };
}

const rooted = new WeakMap<VerifierSpec, { source: TrustedRootSource; spec: VerifierSpec }>();

/**
 * A verifier with the controller's Sigstore trusted root (Kyverno's TUF settings) where a Cosign
 * verifier brings no trust material of its own for what it checks (see needsTrustedRoot): classic
 * verifyImages entries and ImageValidatingPolicy attestors alike. The rooted copy is made once per
 * root, so a refreshed root is picked up and an unchanged one costs nothing; no loader, no root
 * configured, or a verifier that needs none: `spec` itself.
 */
export async function rootedVerifier(spec: VerifierSpec, trustedRoot?: TrustedRootLoader): Promise<VerifierSpec> {
  // A verifier with a root of its own (an ImageValidatingPolicy attestor's `tuf`) keeps it.
  if (!trustedRoot || spec.type !== 'cosign' || spec.trustedRoot || !needsTrustedRoot(spec)) return spec;
  const source = await trustedRoot();
  if (!source) return spec;
  const known = rooted.get(spec);
  if (known?.source === source) return known.spec;
  const copy: VerifierSpec = { ...spec, trustedRoot: source };
  rooted.set(spec, { source, spec: copy });
  return copy;
}

/** The entry's verifier without the controller's trusted root. */
export async function entryVerifier(
  attestor: Attestor,
  verification: ImageVerification,
  forAttestation: boolean,
  secrets: SecretAccess,
): Promise<BuiltVerifier> {
  if (verification.type === 'Notary') return notaryVerifier(attestor);
  const spec: CosignVerifier = {
    type: 'cosign',
    signatureRepository: attestor.repository ?? verification.repository,
    annotations: attestor.annotations ?? verification.annotations,
    // An attestation without attestors is fetched and checked as Kyverno does (SCTs not required).
    rekor: { ignoreTlog: false, url: PUBLIC_REKOR_URL },
    ctlog: { ignoreSCT: forAttestation },
  };
  if (verification.type === 'SigstoreBundle') {
    spec.bundle = true;
    // Kyverno's classic bundle verifier asks sigstore-go for no SCT (ctlog.ignoreSCT drops the observer timestamp).
    spec.bundleScts = false;
  }
  if (verification.cosignOCI11) spec.oci11 = true;
  let path = '';
  if (attestor.keys) {
    path = '.keys';
    const keys = attestor.keys;
    if (keys.publicKeys) spec.publicKeys = [keys.publicKeys];
    else if (keys.secret) spec.publicKeys = [await secretKey(keys.secret, secrets)];
    else if (keys.kms) {
      throw new UnsupportedAttestorError(
        `KMS keys (${keys.kms}) are not supported by Edict: the image was not verified`,
      );
    }
    if (keys.signatureAlgorithm) spec.hashAlgorithm = hashAlgorithm(keys.signatureAlgorithm);
    applyLogs(spec, keys.rekor, keys.ctlog);
  } else if (attestor.certificates) {
    path = '.certificates';
    const { cert, certChain } = attestor.certificates;
    spec.certificate = { cert, certChain };
    applyLogs(spec, attestor.certificates.rekor, attestor.certificates.ctlog);
  } else if (attestor.keyless) {
    path = '.keyless';
    const keyless = attestor.keyless;
    spec.keyless = {
      identities: [
        {
          subject: keyless.subject,
          subjectRegExp: keyless.subjectRegExp,
          issuer: keyless.issuer,
          issuerRegExp: keyless.issuerRegExp,
        },
      ],
      roots: keyless.roots ?? verification.roots,
      extensions: keyless.additionalExtensions ? { ...keyless.additionalExtensions } : undefined,
      // Kyverno's matchCertificateData: subject and issuer are wildcards.
      wildcards: true,
    };
    applyLogs(spec, keyless.rekor, keyless.ctlog);
  } else {
    // No attestor (an attestation's implicit entry): keyless with Sigstore's roots, any identity.
    spec.keyless = { identities: [], roots: verification.roots };
  }
  return { spec, path };
}

/**
 * Whether the entry leaves something to Sigstore's trusted root, as Kyverno falls back to its TUF
 * root: Fulcio roots of a keyless entry, the Rekor key, the CT log key of a certificate, bundles.
 */
function needsTrustedRoot(spec: CosignVerifier): boolean {
  if (spec.bundle) return true;
  if (spec.keyless && !spec.keyless.roots) return true;
  if (!spec.rekor.ignoreTlog && !spec.rekor.publicKey) return true;
  const certificateBased = spec.keyless !== undefined || spec.certificate?.certChain !== undefined;
  return certificateBased && !spec.ctlog.ignoreSCT && !spec.ctlog.publicKey;
}

/** Kyverno's rekor/ctlog options: an absent block means the public log, checked; SCTs checked. */
function applyLogs(spec: CosignVerifier, rekor: TransparencyLog | undefined, ctlog: CertificateLog | undefined): void {
  spec.rekor = rekor
    ? { ignoreTlog: rekor.ignoreTlog === true, url: rekor.url, publicKey: rekor.pubkey }
    : { ignoreTlog: false, url: PUBLIC_REKOR_URL };
  spec.ctlog = ctlog ? { ignoreSCT: ctlog.ignoreSCT === true, publicKey: ctlog.pubkey } : { ignoreSCT: false };
  if (ctlog?.tsaCertChain) spec.tsaCertChain = ctlog.tsaCertChain;
}

function notaryVerifier(attestor: Attestor): { spec: NotaryVerifier; path: string } {
  const certificates = attestor.certificates;
  const certs = [certificates?.cert, certificates?.certChain].filter(Boolean).join('\n');
  if (!certs) {
    throw new UnsupportedAttestorError('Notary verification needs certificates (cert or certChain) in the attestor');
  }
  return {
    spec: { type: 'notary', certs, signatureRepository: attestor.repository },
    path: '',
  };
}

function hashAlgorithm(name: string): CosignVerifier['hashAlgorithm'] {
  const lower = name.toLowerCase();
  if (lower === 'sha224' || lower === 'sha256' || lower === 'sha384' || lower === 'sha512') return lower;
  throw new UnsupportedAttestorError(`invalid signature algorithm provided: ${name}`);
}

/**
 * The public key a `keys.secret` names: the Secret's `cosign.pub` (cosign's `k8s://ns/name`). A
 * namespaced Policy reads only Secrets of its own namespace.
 */
async function secretKey(secret: { name: string; namespace: string }, access: SecretAccess): Promise<string> {
  const where = `k8s://${secret.namespace}/${secret.name}`;
  if (access.policyNamespace !== undefined && secret.namespace !== access.policyNamespace) {
    throw new UnsupportedAttestorError(
      `key secret ${where} is outside the policy's namespace ${access.policyNamespace}: a namespaced Policy reads only its own Secrets`,
    );
  }
  if (!access.resources) throw new UnsupportedAttestorError(`key secret ${where} cannot be read: no cluster access`);
  const object = await access.resources.get('v1', 'Secret', secret.namespace, secret.name);
  if (!object) throw new UnsupportedAttestorError(`key secret ${where} not found`);
  const data = (object as { data?: Record<string, unknown> }).data;
  const encoded = data?.['cosign.pub'];
  if (typeof encoded !== 'string') throw new UnsupportedAttestorError(`key secret ${where} has no cosign.pub`);
  return decodeBase64(encoded, where);
}

function decodeBase64(encoded: string, where: string): string {
  try {
    return decodeStdBase64(encoded).toString('utf8');
  } catch (error) {
    throw new UnsupportedAttestorError(`key secret ${where}: cosign.pub is not base64 (${(error as Error).message})`);
  }
}
