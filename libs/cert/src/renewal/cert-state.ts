/**
 * What the two Secrets hold, parsed once per decision: the CA bundle with the CA whose key we
 * have (the signer), and the serving certificate with whether its key matches.
 */
import { createPrivateKey, type KeyObject, type X509Certificate } from 'node:crypto';
import { CA_ADDED_AT_ANNOTATION, TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY } from '../cert.constants';
import { keyAlgorithmOf, type KeyAlgorithm } from '../crypto/key-algorithm';
import { parseCertificates } from '../crypto/pem';
import type { StoredSecret } from '../secrets/secret-store';

export interface CaState {
  readonly secret?: StoredSecret;
  /** No Secret yet, or one carrying our managed-by label. */
  readonly managed: boolean;
  /** The CA certificates of the bundle, oldest first (non-CA and corrupt blocks dropped). */
  readonly bundle: readonly X509Certificate[];
  /** The bundle entry whose key `tls.key` holds. */
  readonly signer?: X509Certificate;
  readonly signerKeyPem?: string;
  /** When the signer entered the bundle (absent for Secrets we did not write: long ago). */
  readonly signerAddedAt?: Date;
}

export interface LeafState {
  readonly secret?: StoredSecret;
  readonly managed: boolean;
  readonly certificate?: X509Certificate;
  readonly keyMatches: boolean;
  readonly keyAlgorithm?: KeyAlgorithm;
}

/** The label marking Secrets this module owns. */
export interface ManagedByLabel {
  readonly key: string;
  readonly value: string;
}

function isManaged(secret: StoredSecret | undefined, managedBy: ManagedByLabel): boolean {
  return secret === undefined || secret.labels[managedBy.key] === managedBy.value;
}

function readKey(pem: string | undefined): KeyObject | undefined {
  if (!pem) return undefined;
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

function parseDate(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function readCaState(secret: StoredSecret | undefined, managedBy: ManagedByLabel): CaState {
  const bundle = parseCertificates(secret?.data[TLS_CERT_KEY]).filter((certificate) => certificate.ca);
  const keyPem = secret?.data[TLS_PRIVATE_KEY_KEY];
  const key = readKey(keyPem);
  // The newest matching entry wins should the same key appear twice.
  const signer = key ? [...bundle].reverse().find((certificate) => certificate.checkPrivateKey(key)) : undefined;
  return {
    secret,
    managed: isManaged(secret, managedBy),
    bundle,
    signer,
    signerKeyPem: signer ? keyPem : undefined,
    signerAddedAt: signer ? parseDate(secret?.annotations[CA_ADDED_AT_ANNOTATION]) : undefined,
  };
}

export function readLeafState(secret: StoredSecret | undefined, managedBy: ManagedByLabel): LeafState {
  const certificate = parseCertificates(secret?.data[TLS_CERT_KEY])[0];
  const key = readKey(secret?.data[TLS_PRIVATE_KEY_KEY]);
  return {
    secret,
    managed: isManaged(secret, managedBy),
    certificate,
    keyMatches: certificate !== undefined && key !== undefined && certificate.checkPrivateKey(key),
    keyAlgorithm: key ? keyAlgorithmOf(key) : undefined,
  };
}

export function notAfter(certificate: X509Certificate): number {
  return new Date(certificate.validTo).getTime();
}

/** Signed by `ca`: issuer name and signature both check out. */
export function issuedBy(leaf: X509Certificate, ca: X509Certificate): boolean {
  try {
    return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
  } catch {
    return false;
  }
}
