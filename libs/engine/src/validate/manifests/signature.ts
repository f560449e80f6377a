import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { BoundedCache } from '@edict/foundation';
import { decodeMessage } from './artifact';
import { decodeStdBase64 } from './base64';
import { ManifestError } from './errors';

/** The key an attestor entry verifies with. Only inline PEM public keys can be checked offline. */
export type KeySource =
  | { kind: 'pem'; pem: string }
  /** Anything Kyverno would load by reference: a file, `k8s://` secret, KMS URI. */
  | { kind: 'reference'; reference: string }
  | { kind: 'pgp' }
  | { kind: 'keyless' }
  | { kind: 'certificate' };

/** One signature over the message, with its optional certificate and Rekor bundle. */
export interface SignatureSet {
  message: string;
  signature: string;
  certificate?: string;
  bundle?: string;
}

/**
 * The signature sets in a resource's annotations: `<domain>/signature`, then `signature_1`,
 * `signature_2`, ... until one is missing, each with the shared `<domain>/message`.
 */
export function signatureSets(annotations: Readonly<Record<string, string>>, domain: string): SignatureSet[] {
  const message = annotations[`${domain}/message`];
  if (message === undefined) return [];
  const sets: SignatureSet[] = [];
  const count = Object.keys(annotations).length;
  for (let i = 0; i <= count; i++) {
    const suffix = i === 0 ? '' : `_${i}`;
    const signature = annotations[`${domain}/signature${suffix}`];
    if (signature === undefined) break;
    const set: SignatureSet = { message, signature };
    const certificate = annotations[`${domain}/certificate${suffix}`];
    if (certificate !== undefined) set.certificate = certificate;
    const bundle = annotations[`${domain}/bundle${suffix}`];
    if (bundle !== undefined) set.bundle = bundle;
    sets.push(set);
  }
  return sets;
}

/**
 * Verifies the sets with the key until one verifies; returns the signer (empty for keys). Throws a
 * signature-not-found error when there is no set, and lists every failure otherwise.
 */
export function verifySignatureSets(sets: readonly SignatureSet[], key: KeySource): string {
  if (sets.length === 0) throw new ManifestError('signature-not-found', 'signature not found');
  const failures: string[] = [];
  for (const set of sets) {
    const failure = verifySet(set, key);
    if (failure === undefined) return '';
    failures.push(failure);
  }
  throw new Error(`signature verification failed: ${failures.join('\n')}`);
}

/** Undefined when the signature verifies, else why not. */
function verifySet(set: SignatureSet, key: KeySource): string | undefined {
  if (key.kind === 'keyless')
    return 'keyless signature verification (Fulcio certificates, Rekor) is not supported by this engine';
  if (key.kind === 'certificate') return 'certificate-based signature verification is not supported by this engine';
  if (key.kind === 'pgp') return 'PGP public keys are not supported by this engine';
  if (key.kind === 'reference') {
    return `public key ${JSON.stringify(abbreviate(key.reference))} is not an inline PEM public key; key references (files, Kubernetes secrets, KMS) are not supported by this engine`;
  }
  let publicKey: KeyObject;
  try {
    publicKey = loadPublicKey(key.pem);
  } catch (error) {
    return `loading public key: ${(error as Error).message}`;
  }
  const payload = decodeMessage(set.message).payload;
  if (payload instanceof Error) return `decoding manifest signature annotation: ${payload.message}`;
  if (set.certificate || set.bundle) {
    return 'signatures with a certificate or Rekor bundle annotation need the transparency log, which this engine does not support';
  }
  let signature: Buffer;
  try {
    signature = decodeStdBase64(set.signature);
  } catch (error) {
    return `decoding signature: ${(error as Error).message}`;
  }
  const scheme = schemeOf(publicKey);
  if (typeof scheme === 'string') return scheme;
  let valid = false;
  try {
    valid = verify(scheme.digest, payload, publicKey, signature);
  } catch {
    valid = false;
  }
  return valid ? undefined : scheme.failure;
}

const keys = new BoundedCache<KeyObject>(256, 16 * 1024); // keyed by PEM text

function loadPublicKey(pem: string): KeyObject {
  let key = keys.get(pem);
  if (!key) {
    key = createPublicKey({ key: pem, format: 'pem' });
    keys.set(pem, key);
  }
  return key;
}

/** Cosign verifies ECDSA and RSA (PKCS#1 v1.5) over SHA-256 and Ed25519 over the raw message. */
function schemeOf(key: KeyObject): { digest: string | null; failure: string } | string {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return { digest: 'sha256', failure: 'invalid signature when validating ASN.1 encoded signature' };
    case 'rsa':
      return { digest: 'sha256', failure: 'crypto/rsa: verification error' };
    case 'ed25519':
      return { digest: null, failure: 'failed to verify signature' };
    default:
      return `unsupported public key type ${key.asymmetricKeyType ?? 'unknown'}`;
  }
}

function abbreviate(text: string): string {
  const flat = text.trim();
  return flat.length > 40 ? `${flat.slice(0, 40)}...` : flat;
}
