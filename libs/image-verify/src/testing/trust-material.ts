/**
 * Keyless test material from @sigstore/mock, in process and offline: a Fulcio-like CA (with a CT
 * log issuing SCTs), a Rekor-like transparency log and a timestamp authority, with their public
 * halves as PEM for policies.
 */
import { createPublicKey, generateKeyPairSync, type KeyPairKeyObjectResult } from 'node:crypto';
import { initializeCA, initializeCTLog, initializeTLog, initializeTSA } from '@sigstore/mock';
import { generateKeyPair } from './keys';

export type CA = Awaited<ReturnType<typeof initializeCA>>;
export type TLog = Awaited<ReturnType<typeof initializeTLog>>;
export type TSA = Awaited<ReturnType<typeof initializeTSA>>;

export interface TestTrustMaterial {
  /** PEM root of the test Fulcio (a policy's `keyless.roots`). */
  fulcioRootPem: string;
  /** PEM key of the test Rekor (a policy's `rekor.publicKey`). */
  rekorPublicKeyPem: string;
  /** PEM key of the test CT log (a policy's `ctlog.publicKey`). */
  ctlogPublicKeyPem: string;
  /** PEM chain of the test timestamp authority, signing certificate first (`tsaCertChain`). */
  tsaCertChainPem: string;
  rekor: TLog;
  tsa: TSA;
  ca: CA;
  /** A fresh P-256 key and a Fulcio certificate for `subject` (URI or email) issued by `issuer`. */
  keyless(
    subject: string,
    issuer: string,
    extensions?: Record<string, string>,
  ): Promise<{ privateKeyPem: string; publicKeyPem: string; certificatePem: string; chainPem: string }>;
}

export interface TestClocks {
  /** When the CA issues (certificates are valid 10 minutes from it). */
  ca?: Date;
  /** Rekor's integrated time. */
  rekor?: Date;
  /** The timestamp authority's time. */
  tsa?: Date;
}

const FULCIO_ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';
const FULCIO_ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';

function ecKeyPair(): KeyPairKeyObjectResult {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export function derToPem(der: Buffer, label = 'CERTIFICATE'): string {
  const body = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function publicPem(der: Buffer): string {
  return createPublicKey({ key: der, format: 'der', type: 'spki' }).export({ format: 'pem', type: 'spki' }) as string;
}

/** Fresh test trust material (new keys each call). */
export async function createTestTrustMaterial(clocks: TestClocks = {}): Promise<TestTrustMaterial> {
  const ctLog = await initializeCTLog(ecKeyPair(), clocks.ca);
  const ca = await initializeCA(ecKeyPair(), ctLog, clocks.ca);
  const rekor = await initializeTLog('https://rekor.test', ecKeyPair(), clocks.rekor);
  const tsa = await initializeTSA(ecKeyPair(), clocks.tsa);
  const fulcioRootPem = derToPem(ca.rootCertificate);
  return {
    fulcioRootPem,
    rekorPublicKeyPem: publicPem(rekor.publicKey),
    ctlogPublicKeyPem: publicPem(ctLog.publicKey),
    tsaCertChainPem: derToPem(tsa.intCertificate) + derToPem(tsa.rootCertificate),
    rekor,
    tsa,
    ca,
    async keyless(subject, issuer, extensions = {}) {
      const { publicKeyPem, privateKeyPem } = generateKeyPair('ecdsa-p256');
      const der = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' });
      const certificate = await ca.issueCertificate({
        publicKey: der,
        subjectAltName: subject,
        extensions: [
          { oid: FULCIO_ISSUER_V1, value: issuer, legacy: true },
          { oid: FULCIO_ISSUER_V2, value: issuer },
          ...Object.entries(extensions).map(([oid, value]) => ({ oid, value, legacy: /\.57264\.1\.[1-6]$/.test(oid) })),
        ],
      });
      return { privateKeyPem, publicKeyPem, certificatePem: derToPem(certificate), chainPem: fulcioRootPem };
    },
  };
}

let shared: Promise<TestTrustMaterial> | undefined;

/** One shared set of test trust material per process (what `rekorBundle: true` signs with). */
export function testTrustMaterial(): Promise<TestTrustMaterial> {
  shared ??= createTestTrustMaterial();
  return shared;
}
