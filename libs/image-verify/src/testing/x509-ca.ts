/**
 * Throw-away X.509 certificate authorities for specs and the signing tool: a root, intermediates
 * and leaf certificates (code signing for notation, time stamping, or anything a spec needs to
 * break), made with @peculiar/x509 on WebCrypto. Keys come back as PKCS#8 PEM.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export type TestCertKeyKind = 'ecdsa-p256' | 'ecdsa-p384' | 'rsa-2048' | 'rsa-3072';

export interface TestCertificate {
  certPem: string;
  keyPem: string;
  der: Uint8Array;
}

export interface TestCa extends TestCertificate {
  /** Issues a certificate signed by this CA. */
  issue(options: IssueOptions): Promise<TestCertificate>;
  /** Issues an intermediate CA under this one. */
  issueCa(options?: CaOptions): Promise<TestCa>;
}

export interface CaOptions {
  commonName?: string;
  keyKind?: TestCertKeyKind;
  notBefore?: Date;
  notAfter?: Date;
  pathLength?: number;
}

export interface IssueOptions {
  commonName?: string;
  keyKind?: TestCertKeyKind;
  notBefore?: Date;
  notAfter?: Date;
  /** Default: code signing. `[]` leaves the extension out. */
  extendedKeyUsages?: string[];
  /** Default: digitalSignature. */
  keyUsages?: x509.KeyUsageFlags;
  /** Adds a CRL distribution point, so revocation would need the network. */
  crlDistributionPoint?: string;
}

export const EKU_CODE_SIGNING = '1.3.6.1.5.5.7.3.3';
export const EKU_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
export const EKU_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

const DAY = 86_400_000;

/** A self-signed root CA valid from a day ago for a year (unless told). */
export async function createTestCa(options: CaOptions = {}): Promise<TestCa> {
  const keys = await generateKeys(options.keyKind ?? 'ecdsa-p256');
  const name = `CN=${options.commonName ?? 'Edict Test Root CA'}, O=Edict Tests`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: signingAlgorithm(keys.privateKey),
    extensions: caExtensions(options.pathLength),
  });
  return ca(cert, keys);
}

async function ca(cert: x509.X509Certificate, keys: CryptoKeyPair): Promise<TestCa> {
  const self = await asTestCertificate(cert, keys.privateKey);
  return {
    ...self,
    issue: (options) => issue(cert, keys, options),
    issueCa: async (options = {}) => {
      const childKeys = await generateKeys(options.keyKind ?? 'ecdsa-p256');
      const child = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${options.commonName ?? 'Edict Test Intermediate CA'}, O=Edict Tests`,
        issuer: cert.subject,
        notBefore: options.notBefore ?? new Date(Date.now() - DAY),
        notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY),
        publicKey: childKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: signingAlgorithm(keys.privateKey),
        extensions: caExtensions(options.pathLength),
      });
      return ca(child, childKeys);
    },
  };
}

async function issue(
  issuer: x509.X509Certificate,
  issuerKeys: CryptoKeyPair,
  options: IssueOptions,
): Promise<TestCertificate> {
  const keys = await generateKeys(options.keyKind ?? 'ecdsa-p256');
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(options.keyUsages ?? x509.KeyUsageFlags.digitalSignature, true),
  ];
  const ekus = options.extendedKeyUsages ?? [EKU_CODE_SIGNING];
  if (ekus.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(ekus, false));
  if (options.crlDistributionPoint)
    extensions.push(new x509.CRLDistributionPointsExtension([options.crlDistributionPoint]));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${options.commonName ?? 'Edict Test Signer'}, O=Edict Tests`,
    issuer: issuer.subject,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 90 * DAY),
    publicKey: keys.publicKey,
    signingKey: issuerKeys.privateKey,
    signingAlgorithm: signingAlgorithm(issuerKeys.privateKey),
    extensions,
  });
  return asTestCertificate(cert, keys.privateKey);
}

function caExtensions(pathLength?: number): x509.Extension[] {
  return [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
  ];
}

async function generateKeys(kind: TestCertKeyKind): Promise<CryptoKeyPair> {
  const algorithm: webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams = kind.startsWith('ecdsa')
    ? { name: 'ECDSA', namedCurve: kind === 'ecdsa-p384' ? 'P-384' : 'P-256' }
    : {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: kind === 'rsa-3072' ? 3072 : 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      };
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function signingAlgorithm(key: CryptoKey): webcrypto.Algorithm | webcrypto.EcdsaParams {
  return key.algorithm.name === 'ECDSA'
    ? ({ name: 'ECDSA', hash: 'SHA-256' } as webcrypto.EcdsaParams)
    : { name: 'RSASSA-PKCS1-v1_5' };
}

async function asTestCertificate(cert: x509.X509Certificate, privateKey: CryptoKey): Promise<TestCertificate> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { certPem: cert.toString('pem') + '\n', keyPem, der: new Uint8Array(cert.rawData) };
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}
