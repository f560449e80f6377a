/**
 * Issuing the self-signed CA and the serving certificate with @peculiar/x509 over Node's WebCrypto.
 * Serials are 16 random bytes (positive); notBefore is backdated for clock skew; a leaf never
 * outlives the CA that signs it.
 */
import 'reflect-metadata';
import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { generateKeyPair, privateKeyToPem, signingAlgorithmOf, type KeyAlgorithm } from './key-algorithm';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;

export interface IssuedCertificate {
  readonly certificate: X509Certificate;
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

export interface CaRequest {
  readonly commonName: string;
  readonly algorithm: KeyAlgorithm;
  readonly now: Date;
  readonly validityMs: number;
  readonly clockSkewMs: number;
}

export interface LeafRequest extends CaRequest {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly issuer: X509Certificate;
  readonly issuerKey: CryptoKey;
  readonly issuerAlgorithm: KeyAlgorithm;
}

/** A positive DER integer: 16 random bytes with the top bit cleared and never all-zero. */
export function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** Whole seconds: X.509 times carry no milliseconds, and equal inputs must give equal outputs. */
function seconds(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

export async function issueCa(request: CaRequest): Promise<IssuedCertificate> {
  const keys = await generateKeyPair(request.algorithm);
  const serialNumber = randomSerial();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber,
    // A distinct subject per CA keeps chain building unambiguous while two CAs share the bundle.
    name: [{ CN: [request.commonName] }, { OU: [`ca-${serialNumber.slice(0, 12)}`] }],
    notBefore: seconds(request.now.getTime() - request.clockSkewMs),
    notAfter: seconds(request.now.getTime() + request.validityMs),
    keys,
    signingAlgorithm: signingAlgorithmOf(request.algorithm),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return finish(certificate, keys.privateKey);
}

export async function issueLeaf(request: LeafRequest): Promise<IssuedCertificate> {
  const keys = await generateKeyPair(request.algorithm);
  const issuer = new x509.X509Certificate(request.issuer.raw);
  const caNotAfter = new Date(request.issuer.validTo).getTime();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [request.commonName] }],
    issuer: issuer.subjectName,
    notBefore: seconds(request.now.getTime() - request.clockSkewMs),
    notAfter: seconds(Math.min(request.now.getTime() + request.validityMs, caNotAfter)),
    publicKey: keys.publicKey,
    signingKey: request.issuerKey,
    signingAlgorithm: signingAlgorithmOf(request.issuerAlgorithm),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature |
          (request.algorithm === 'RSA-2048' ? x509.KeyUsageFlags.keyEncipherment : 0),
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...request.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...request.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuer, false),
    ],
  });
  return finish(certificate, keys.privateKey);
}

async function finish(certificate: x509.X509Certificate, privateKey: CryptoKey): Promise<IssuedCertificate> {
  const certificatePem = certificate.toString('pem') + '\n';
  return {
    certificate: new X509Certificate(certificatePem),
    certificatePem,
    privateKeyPem: await privateKeyToPem(privateKey),
  };
}
