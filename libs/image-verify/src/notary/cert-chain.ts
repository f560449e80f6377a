/**
 * The Notary Project's certificate rules (signature-specification.md, "Certificate Requirements")
 * on the chain carried in a signature envelope, and the trust store check: the chain is ordered
 * leaf to root, each link signed by the next, the last self-signed; CA and leaf extensions as the
 * specification requires; no SHA-1; and one certificate of the chain must be in the trust store.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  KeyUsage,
  KeyUsageFlags,
  id_ce_basicConstraints,
  id_ce_cRLDistributionPoints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_pe_authorityInfoAccess,
} from '@peculiar/asn1-x509';
import type { NotaryAlgorithm } from './constants';

export class CertificateChainError extends Error {
  override readonly name = 'CertificateChainError';
}

export interface ParsedCertificate {
  der: Uint8Array;
  x509: X509Certificate;
  asn: Certificate;
  subject: string;
}

const SHA1_SIGNATURES = new Set(['1.2.840.113549.1.1.5', '1.2.840.10045.4.1']);
const EKU_ANY = '2.5.29.37.0';
const EKU_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EKU_CODE_SIGNING = '1.3.6.1.5.5.7.3.3';
const EKU_EMAIL = '1.3.6.1.5.5.7.3.4';
const EKU_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const FORBIDDEN_LEAF_KEY_USAGE =
  KeyUsageFlags.keyEncipherment |
  KeyUsageFlags.dataEncipherment |
  KeyUsageFlags.keyAgreement |
  KeyUsageFlags.keyCertSign |
  KeyUsageFlags.cRLSign |
  KeyUsageFlags.encipherOnly |
  KeyUsageFlags.decipherOnly;

export function parseCertificate(der: Uint8Array, what: string): ParsedCertificate {
  try {
    const x509 = new X509Certificate(der);
    return { der, x509, asn: AsnConvert.parse(der, Certificate), subject: x509.subject.replace(/\n/g, ', ') };
  } catch (error) {
    throw new CertificateChainError(`${what} is not a DER X.509 certificate: ${(error as Error).message}`);
  }
}

/** PEM text with one or more certificates (Kyverno's `certs`/`tsaCerts`). */
export function parsePemCertificates(pem: string): ParsedCertificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block, i) => {
    const body = block.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    return parseCertificate(new Uint8Array(Buffer.from(body, 'base64')), `certificate ${i + 1}`);
  });
}

/** The signing certificate's key decides the algorithm (spec "Algorithm Selection"). */
export function algorithmForKey(key: KeyObject): NotaryAlgorithm | undefined {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    return ({ 2048: 'PS256', 3072: 'PS384', 4096: 'PS512' } as const)[details.modulusLength as 2048 | 3072 | 4096];
  }
  if (key.asymmetricKeyType === 'ec') {
    return ({ prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' } as const)[
      details.namedCurve as 'prime256v1'
    ];
  }
  return undefined;
}

/**
 * notation's ValidateCodeSigningCertChain: order, signatures, CA and leaf requirements, and (when a
 * signing time is given) every certificate valid at that time.
 */
export function validateSigningChain(chain: ParsedCertificate[], signingTime: Date | undefined): void {
  if (chain.length === 0) throw new CertificateChainError('certificate chain is empty');
  for (const cert of chain) {
    if (SHA1_SIGNATURES.has(cert.asn.signatureAlgorithm.algorithm)) {
      throw new CertificateChainError(
        `certificate with subject "${cert.subject}" is signed with SHA-1, which is not allowed`,
      );
    }
  }
  const last = chain[chain.length - 1];
  if (!isSelfSigned(last)) {
    throw new CertificateChainError(
      chain.length === 1
        ? `invalid self-signed certificate: subject "${last.subject}" is not self-signed`
        : 'certificate chain must end with a root certificate',
    );
  }
  for (let i = 0; i < chain.length - 1; i++) {
    const cert = chain[i];
    const parent = chain[i + 1];
    if (cert.x509.issuer !== parent.x509.subject || !cert.x509.verify(parent.x509.publicKey)) {
      throw new CertificateChainError(
        `invalid certificates or certificate with subject "${cert.subject}" is not issued by "${parent.subject}"`,
      );
    }
  }
  validateLeaf(chain[0], 'signing', EKU_CODE_SIGNING);
  for (let i = 1; i < chain.length; i++) validateCA(chain[i], i - 1);
  if (signingTime) {
    for (const cert of chain) {
      if (!validAt(cert, signingTime)) {
        throw new CertificateChainError(
          `certificate with subject "${cert.subject}" was invalid at signing time of ${signingTime.toISOString()}`,
        );
      }
    }
  }
}

/** The same rules for a timestamp authority's chain (leaf must carry the timeStamping usage). */
export function validateTimestampingChain(chain: ParsedCertificate[]): void {
  validateLeaf(chain[0], 'timestamping', EKU_TIME_STAMPING);
  for (let i = 1; i < chain.length; i++) validateCA(chain[i], i - 1);
}

export function validAt(cert: ParsedCertificate, time: Date): boolean {
  return time >= new Date(cert.x509.validFrom) && time <= new Date(cert.x509.validTo);
}

export function isSelfSigned(cert: ParsedCertificate): boolean {
  return cert.x509.issuer === cert.x509.subject && cert.x509.verify(cert.x509.publicKey);
}

export function sameCertificate(a: ParsedCertificate, b: ParsedCertificate): boolean {
  return Buffer.compare(Buffer.from(a.der), Buffer.from(b.der)) === 0;
}

/** Certificates that name a CRL or OCSP endpoint: their revocation status needs the network. */
export function revocationEndpoints(cert: ParsedCertificate): string[] {
  const found: string[] = [];
  for (const ext of cert.asn.tbsCertificate.extensions ?? []) {
    if (ext.extnID === id_ce_cRLDistributionPoints) found.push('CRL distribution points');
    if (
      ext.extnID === id_pe_authorityInfoAccess &&
      Buffer.from(ext.extnValue.buffer).includes(Buffer.from([0x2b, 6, 1, 5, 5, 7, 0x30, 1]))
    ) {
      found.push('OCSP');
    }
  }
  return found;
}

export function publicKeyOf(cert: ParsedCertificate): KeyObject {
  return cert.x509.publicKey;
}

function validateLeaf(cert: ParsedCertificate, role: 'signing' | 'timestamping', requiredEku: string): void {
  const who = `${role} certificate with subject "${cert.subject}"`;
  const constraints = extension(cert, id_ce_basicConstraints, BasicConstraints);
  if (constraints?.value.cA)
    throw new CertificateChainError(`${who}: basic constraints must not have the CA field set`);
  const keyUsage = extension(cert, id_ce_keyUsage, KeyUsage);
  if (!keyUsage || !keyUsage.critical)
    throw new CertificateChainError(`${who}: key usage extension must be present and critical`);
  const flags = keyUsage.value.toNumber();
  if (!(flags & KeyUsageFlags.digitalSignature))
    throw new CertificateChainError(`${who}: key usage must have the digitalSignature bit set`);
  if (role === 'signing' && flags & FORBIDDEN_LEAF_KEY_USAGE) {
    throw new CertificateChainError(`${who}: key usage must only have digitalSignature (and nonRepudiation) bits set`);
  }
  const eku = extension(cert, id_ce_extKeyUsage, ExtendedKeyUsage);
  if (eku) {
    const usages = new Set<string>(eku.value);
    const forbidden = [
      EKU_ANY,
      EKU_SERVER_AUTH,
      EKU_CLIENT_AUTH,
      EKU_EMAIL,
      role === 'signing' ? EKU_TIME_STAMPING : EKU_CODE_SIGNING,
    ];
    const bad = forbidden.find((oid) => usages.has(oid));
    if (bad) throw new CertificateChainError(`${who}: extended key usage ${bad} is not allowed`);
    if (role === 'timestamping' && !usages.has(requiredEku))
      throw new CertificateChainError(`${who}: extended key usage must contain timeStamping`);
  } else if (role === 'timestamping') {
    throw new CertificateChainError(`${who}: extended key usage must contain timeStamping`);
  }
  checkKeyLength(cert, who);
}

function validateCA(cert: ParsedCertificate, depthBelow: number): void {
  const who = `certificate with subject "${cert.subject}"`;
  const constraints = extension(cert, id_ce_basicConstraints, BasicConstraints);
  if (!constraints || !constraints.critical || !constraints.value.cA) {
    throw new CertificateChainError(`${who}: ca field in basic constraints must be present, critical, and set to true`);
  }
  const pathLen = constraints.value.pathLenConstraint;
  if (pathLen !== undefined && pathLen < depthBelow) {
    throw new CertificateChainError(
      `${who}: expected path length of ${depthBelow} but certificate has path length ${pathLen} instead`,
    );
  }
  const keyUsage = extension(cert, id_ce_keyUsage, KeyUsage);
  if (!keyUsage || !keyUsage.critical || !(keyUsage.value.toNumber() & KeyUsageFlags.keyCertSign)) {
    throw new CertificateChainError(`${who}: key usage must be present, critical, and have the keyCertSign bit set`);
  }
  checkKeyLength(cert, who);
}

function checkKeyLength(cert: ParsedCertificate, who: string): void {
  const key = cert.x509.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) < 2048) {
    throw new CertificateChainError(`${who}: RSA key length ${details.modulusLength} bits is below 2048`);
  }
  if (
    key.asymmetricKeyType === 'ec' &&
    details.namedCurve !== 'prime256v1' &&
    details.namedCurve !== 'secp384r1' &&
    details.namedCurve !== 'secp521r1'
  ) {
    throw new CertificateChainError(`${who}: EC curve ${details.namedCurve} is not supported`);
  }
}

function extension<T>(
  cert: ParsedCertificate,
  oid: string,
  type: new () => T,
): { critical: boolean; value: T } | undefined {
  const ext = (cert.asn.tbsCertificate.extensions ?? []).find((e) => e.extnID === oid);
  if (!ext) return undefined;
  return { critical: ext.critical, value: AsnConvert.parse(ext.extnValue.buffer, type) };
}
