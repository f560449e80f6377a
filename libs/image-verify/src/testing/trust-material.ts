/**
 * Keyless test material, in process and offline: the test Fulcio and CT log of fulcio.ts, a
 * Rekor-like transparency log and a timestamp authority from @sigstore/mock, with their public
 * halves as PEM for policies.
 */
import { createPublicKey, generateKeyPairSync, type KeyPairKeyObjectResult } from 'node:crypto';
import { initializeTLog, initializeTSA } from '@sigstore/mock';
import { createTestCtLog, createTestFulcio, type TestFulcio } from './fulcio';
import { generateKeyPair } from './keys';

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
  ca: TestFulcio;
  /** A fresh P-256 key and a Fulcio certificate for `subject` (URI or email) issued by `issuer`. */
  keyless(
    subject: string,
    issuer: string,
    extensions?: Record<string, string>,
  ): Promise<{ privateKeyPem: string; publicKeyPem: string; certificatePem: string; chainPem: string }>;
}

export interface TestClocks {
  /** When the CA issues, and its SCTs time (certificates are valid from a minute before it for 10 minutes). */
  ca?: Date;
  /** Rekor's integrated time. */
  rekor?: Date;
  /** The timestamp authority's time. */
  tsa?: Date;
}

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
  const ctLog = createTestCtLog(clocks.ca);
  const ca = await createTestFulcio(ctLog, clocks.ca);
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
      const certificate = await ca.issueCertificate(der, subject, issuer, extensions);
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
