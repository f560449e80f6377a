// The ASN.1 layers that @peculiar/x509 is built on (its own dependencies): they parse DER without
// needing the reflect-metadata/tsyringe setup of the high-level API.
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { RSAPublicKey } from '@peculiar/asn1-rsa';
import {
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLDistributionPoints,
  Certificate,
  CertificatePolicies,
  ExtendedKeyUsage,
  Extensions,
  KeyUsage,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  type Extension,
  type GeneralName,
  type Name,
  type SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';
import type { JsonObject, JsonValue } from '../json';

/** A PEM text that is not an RSA certificate or certificate request Kyverno can decode. */
export class X509DecodeError extends Error {
  override readonly name = 'X509DecodeError';
}

/**
 * x509_decode: a PEM certificate or CSR decoded into the JSON that Go's encoding/json produces
 * for `*x509.Certificate` / `*x509.CertificateRequest` (Kyverno marshals the struct as is), with
 * `PublicKey` replaced by `{ N: "<modulus in decimal>", E: <exponent> }`. Only RSA keys are
 * accepted, like Kyverno. Byte slices are base64, absent slices null, times RFC 3339 UTC.
 */

const SIGNATURE_ALGORITHMS: Readonly<Record<string, number>> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5, // SHA384WithRSA
  '1.2.840.113549.1.1.13': 6, // SHA512WithRSA
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8, // DSAWithSHA256
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10, // ECDSAWithSHA256
  '1.2.840.10045.4.3.3': 11, // ECDSAWithSHA384
  '1.2.840.10045.4.3.4': 12, // ECDSAWithSHA512
  '1.2.840.113549.1.1.10': 13, // RSASSA-PSS (reported as SHA256WithRSAPSS)
  '1.3.101.112': 16, // PureEd25519
};
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';

const EXT_KEY_USAGES: Readonly<Record<string, number>> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

const NAME_FIELDS: Readonly<Record<string, string>> = {
  '2.5.4.6': 'Country',
  '2.5.4.10': 'Organization',
  '2.5.4.11': 'OrganizationalUnit',
  '2.5.4.7': 'Locality',
  '2.5.4.8': 'Province',
  '2.5.4.9': 'StreetAddress',
  '2.5.4.17': 'PostalCode',
};

const b64 = (bytes: ArrayBuffer | Uint8Array | undefined): JsonValue =>
  bytes === undefined
    ? null
    : Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('base64');
const der = (value: object): Buffer => Buffer.from(AsnConvert.serialize(value));
const oid = (dotted: string): number[] => dotted.split('.').map(Number);
const orNull = <T extends JsonValue>(items: T[]): JsonValue => (items.length ? items : null);

/** Go `pem.Decode`: the first PEM block in the text, or undefined. */
function decodePem(text: string): { type: string; bytes: Buffer } | undefined {
  const match = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!match) return undefined;
  const body = match[2]!
    .split(/\r?\n/)
    .filter((line) => !line.includes(':'))
    .join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: match[1]!, bytes: Buffer.from(body.replace(/\s+/g, ''), 'base64') };
}

function nameJson(name: Name): JsonObject {
  const fields: Record<string, string[]> = {};
  const names: JsonValue[] = [];
  let commonName = '';
  let serialNumber = '';
  for (const rdn of name) {
    for (const atv of rdn) {
      const value = atv.value.toString();
      names.push({ Type: oid(atv.type), Value: value });
      if (atv.type === '2.5.4.3') commonName = value;
      else if (atv.type === '2.5.4.5') serialNumber = value;
      else if (NAME_FIELDS[atv.type]) (fields[NAME_FIELDS[atv.type]!] ??= []).push(value);
    }
  }
  const out: JsonObject = {};
  for (const field of [
    'Country',
    'Organization',
    'OrganizationalUnit',
    'Locality',
    'Province',
    'StreetAddress',
    'PostalCode',
  ]) {
    out[field] = fields[field] ?? null;
  }
  return { ...out, SerialNumber: serialNumber, CommonName: commonName, Names: orNull(names), ExtraNames: null };
}

function rsaPublicKey(spki: SubjectPublicKeyInfo): JsonObject {
  if (spki.algorithm.algorithm !== RSA_ENCRYPTION) throw new X509DecodeError('certificate should use rsa algorithm');
  let key: RSAPublicKey;
  try {
    key = AsnConvert.parse(spki.subjectPublicKey, RSAPublicKey);
  } catch {
    throw new X509DecodeError('failed to parse subject public key info');
  }
  const n = BigInt(`0x${Buffer.from(key.modulus).toString('hex') || '0'}`);
  const e = Number(BigInt(`0x${Buffer.from(key.publicExponent).toString('hex') || '0'}`));
  return { N: n.toString(), E: e };
}

/** Go's URL struct as JSON (what `URIs` holds). */
function urlJson(text: string): JsonObject {
  const match = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(text);
  return {
    Scheme: match?.[1] ?? '',
    Opaque: '',
    User: null,
    Host: match?.[2] ?? '',
    Path: match?.[3] ?? '',
    RawPath: '',
    OmitHost: false,
    ForceQuery: false,
    RawQuery: match?.[4] ?? '',
    Fragment: match?.[5] ?? '',
    RawFragment: '',
  };
}

interface SanLists {
  DNSNames: string[];
  EmailAddresses: string[];
  IPAddresses: string[];
  URIs: JsonObject[];
}

function addGeneralNames(names: Iterable<GeneralName>, into: SanLists): void {
  for (const name of names) {
    if (name.dNSName !== undefined) into.DNSNames.push(name.dNSName);
    else if (name.rfc822Name !== undefined) into.EmailAddresses.push(name.rfc822Name);
    else if (name.iPAddress !== undefined) into.IPAddresses.push(name.iPAddress);
    else if (name.uniformResourceIdentifier !== undefined) into.URIs.push(urlJson(name.uniformResourceIdentifier));
  }
}

function extensionFields(extensions: readonly Extension[]): JsonObject {
  const san: SanLists = { DNSNames: [], EmailAddresses: [], IPAddresses: [], URIs: [] };
  const out: JsonObject = {
    KeyUsage: 0,
    ExtKeyUsage: null,
    UnknownExtKeyUsage: null,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: null,
    IssuingCertificateURL: null,
    CRLDistributionPoints: null,
    PolicyIdentifiers: null,
    Policies: null,
  };
  for (const ext of extensions) {
    const value = ext.extnValue.buffer;
    switch (ext.extnID) {
      case '2.5.29.15':
        out['KeyUsage'] = AsnConvert.parse(value, KeyUsage).toNumber();
        break;
      case '2.5.29.37': {
        const known: number[] = [];
        const unknown: number[][] = [];
        for (const usage of AsnConvert.parse(value, ExtendedKeyUsage)) {
          const id = EXT_KEY_USAGES[usage];
          if (id === undefined) unknown.push(oid(usage));
          else known.push(id);
        }
        out['ExtKeyUsage'] = orNull(known);
        out['UnknownExtKeyUsage'] = orNull(unknown);
        break;
      }
      case '2.5.29.19': {
        const constraints = AsnConvert.parse(value, BasicConstraints);
        out['BasicConstraintsValid'] = true;
        out['IsCA'] = constraints.cA;
        out['MaxPathLen'] = constraints.pathLenConstraint ?? -1;
        out['MaxPathLenZero'] = constraints.pathLenConstraint === 0;
        break;
      }
      case '2.5.29.14':
        out['SubjectKeyId'] = b64(AsnConvert.parse(value, SubjectKeyIdentifier).buffer);
        break;
      case '2.5.29.35':
        out['AuthorityKeyId'] = b64(AsnConvert.parse(value, AuthorityKeyIdentifier).keyIdentifier?.buffer);
        break;
      case '2.5.29.17':
        addGeneralNames(AsnConvert.parse(value, SubjectAlternativeName), san);
        break;
      case '1.3.6.1.5.5.7.1.1': {
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const access of AsnConvert.parse(value, AuthorityInfoAccessSyntax)) {
          const uri = access.accessLocation.uniformResourceIdentifier;
          if (uri === undefined) continue;
          if (access.accessMethod === '1.3.6.1.5.5.7.48.1') ocsp.push(uri);
          else if (access.accessMethod === '1.3.6.1.5.5.7.48.2') issuers.push(uri);
        }
        out['OCSPServer'] = orNull(ocsp);
        out['IssuingCertificateURL'] = orNull(issuers);
        break;
      }
      case '2.5.29.31': {
        const points: string[] = [];
        for (const point of AsnConvert.parse(value, CRLDistributionPoints)) {
          for (const name of point.distributionPoint?.fullName ?? []) {
            if (name.uniformResourceIdentifier !== undefined) points.push(name.uniformResourceIdentifier);
          }
        }
        out['CRLDistributionPoints'] = orNull(points);
        break;
      }
      case '2.5.29.32': {
        const policies = [...AsnConvert.parse(value, CertificatePolicies)].map((p) => p.policyIdentifier);
        out['PolicyIdentifiers'] = orNull(policies.map(oid));
        out['Policies'] = orNull(policies);
        break;
      }
    }
  }
  return {
    ...out,
    DNSNames: orNull(san.DNSNames),
    EmailAddresses: orNull(san.EmailAddresses),
    IPAddresses: orNull(san.IPAddresses),
    URIs: orNull(san.URIs),
  };
}

const extensionList = (extensions: readonly Extension[]): JsonValue =>
  orNull(extensions.map((ext) => ({ Id: oid(ext.extnID), Critical: ext.critical, Value: b64(ext.extnValue.buffer) })));

function decodeCertificate(bytes: Buffer): JsonObject {
  let cert: Certificate;
  try {
    cert = AsnConvert.parse(bytes, Certificate);
  } catch {
    throw new X509DecodeError('x509: malformed certificate');
  }
  const tbs = cert.tbsCertificate;
  const publicKey = rsaPublicKey(tbs.subjectPublicKeyInfo);
  const extensions = tbs.extensions ?? [];
  const serial = BigInt(`0x${Buffer.from(tbs.serialNumber).toString('hex') || '0'}`);
  return {
    Raw: b64(bytes),
    RawTBSCertificate: b64(der(tbs)),
    RawSubjectPublicKeyInfo: b64(der(tbs.subjectPublicKeyInfo)),
    RawSubject: b64(der(tbs.subject)),
    RawIssuer: b64(der(tbs.issuer)),
    Signature: b64(cert.signatureValue),
    SignatureAlgorithm: SIGNATURE_ALGORITHMS[cert.signatureAlgorithm.algorithm] ?? 0,
    PublicKeyAlgorithm: 1,
    PublicKey: publicKey,
    Version: tbs.version + 1,
    // encoding/json writes the big integer as a number; decoding it again yields a float64.
    SerialNumber: Number(serial),
    Issuer: nameJson(tbs.issuer),
    Subject: nameJson(tbs.subject),
    NotBefore: tbs.validity.notBefore.getTime().toISOString().replace('.000Z', 'Z'),
    NotAfter: tbs.validity.notAfter.getTime().toISOString().replace('.000Z', 'Z'),
    Extensions: extensionList(extensions),
    ExtraExtensions: null,
    UnhandledCriticalExtensions: null,
    ...extensionFields(extensions),
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
  };
}

function decodeRequest(bytes: Buffer): JsonObject {
  let csr: CertificationRequest;
  try {
    csr = AsnConvert.parse(bytes, CertificationRequest);
  } catch {
    throw new X509DecodeError('x509: malformed certificate request');
  }
  const info = csr.certificationRequestInfo;
  const publicKey = rsaPublicKey(info.subjectPKInfo);
  const extensions: Extension[] = [];
  const san = { DNSNames: [], EmailAddresses: [], IPAddresses: [], URIs: [] } as SanLists;
  for (const attribute of info.attributes) {
    if (attribute.type !== '1.2.840.113549.1.9.14') continue; // extensionRequest
    for (const raw of attribute.values) {
      for (const ext of AsnConvert.parse(raw, Extensions)) {
        extensions.push(ext);
        if (ext.extnID === '2.5.29.17')
          addGeneralNames(AsnConvert.parse(ext.extnValue.buffer, SubjectAlternativeName), san);
      }
    }
  }
  return {
    Raw: b64(bytes),
    RawTBSCertificateRequest: b64(der(info)),
    RawSubjectPublicKeyInfo: b64(der(info.subjectPKInfo)),
    RawSubject: b64(der(info.subject)),
    Version: info.version,
    Signature: b64(csr.signature),
    SignatureAlgorithm: SIGNATURE_ALGORITHMS[csr.signatureAlgorithm.algorithm] ?? 0,
    PublicKeyAlgorithm: 1,
    PublicKey: publicKey,
    Subject: nameJson(info.subject),
    Attributes: null,
    Extensions: extensionList(extensions),
    ExtraExtensions: null,
    DNSNames: orNull(san.DNSNames),
    EmailAddresses: orNull(san.EmailAddresses),
    IPAddresses: orNull(san.IPAddresses),
    URIs: orNull(san.URIs),
  };
}

export function decodeX509(pem: string): JsonObject {
  const block = decodePem(pem);
  if (!block) throw new X509DecodeError('failed to decode PEM block');
  if (block.type === 'CERTIFICATE') return decodeCertificate(block.bytes);
  if (block.type === 'CERTIFICATE REQUEST') return decodeRequest(block.bytes);
  throw new X509DecodeError('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST');
}
