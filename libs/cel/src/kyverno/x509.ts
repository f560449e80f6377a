import type { Environment } from '@marcbachmann/cel-js';
import { decodeX509, errorMessage, type JsonObject } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { namespaceFunction } from '../libraries/namespace';
import type { KyvernoCelLimits } from './ports';
import { fromDecodedJson } from './values';

/** The fields Kyverno's CEL x509 library keeps of a certificate (its CertificateOutput). */
const CERTIFICATE_FIELDS = [
  'Raw',
  'RawTBSCertificate',
  'RawSubjectPublicKeyInfo',
  'RawSubject',
  'RawIssuer',
  'Signature',
  'PublicKeyAlgorithm',
  'PublicKey',
  'SerialNumber',
  'Issuer',
  'NotBefore',
  'NotAfter',
  'KeyUsage',
  'Extensions',
  'ExtraExtensions',
  'ExtKeyUsage',
  'BasicConstraintsValid',
  'IsCA',
  'MaxPathLen',
  'MaxPathLenZero',
  'AuthorityKeyId',
  'OCSPServer',
  'IssuingCertificateURL',
  'DNSNames',
  'EmailAddresses',
  'IPAddresses',
  'PermittedDNSDomainsCritical',
  'PermittedDNSDomains',
  'ExcludedDNSDomains',
  'PermittedIPRanges',
  'ExcludedIPRanges',
  'PermittedEmailAddresses',
  'ExcludedEmailAddresses',
  'PermittedURIDomains',
  'ExcludedURIDomains',
  'CRLDistributionPoints',
  'PolicyIdentifiers',
] as const;

/**
 * Kyverno's x509 library: `x509.decode(pem)` decodes an RSA certificate (the fields of Kyverno's
 * CertificateOutput) or certificate request (all of Go's x509.CertificateRequest) into a map; the
 * public key reads `{N: "<modulus>", E: <exponent>}`.
 */
export function registerX509(env: Environment, limits: KyvernoCelLimits): void {
  namespaceFunction(env, 'x509.decode(string): dyn', (pem: string) => {
    if (pem.length > limits.maxDocumentLength) {
      throw celError(`x509.decode: the PEM text is longer than ${limits.maxDocumentLength} characters`);
    }
    let decoded: JsonObject;
    try {
      decoded = decodeX509(pem);
    } catch (error) {
      throw celError(errorMessage(error));
    }
    if (!isCertificate(pem)) return fromDecodedJson(decoded);
    const kept: JsonObject = {};
    for (const field of CERTIFICATE_FIELDS) kept[field] = decoded[field] ?? null;
    return fromDecodedJson(kept);
  });
}

/** The first PEM block is a CERTIFICATE (not a CERTIFICATE REQUEST). */
function isCertificate(pem: string): boolean {
  return /-----BEGIN ([A-Z ]+)-----/.exec(pem)?.[1] === 'CERTIFICATE';
}
