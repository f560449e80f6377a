/**
 * Keyless test material from @sigstore/mock, in process and offline: a Fulcio-like CA (with a CT
 * log issuing SCTs), a Rekor-like transparency log and a timestamp authority, with their public
 * halves as PEM for policies.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, type KeyPairKeyObjectResult } from 'node:crypto';
import { X509Certificate } from '@sigstore/core';
import { initializeCA, initializeTLog, initializeTSA } from '@sigstore/mock';
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
  const ctLog = testCtLog(ecKeyPair(), clocks.ca);
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

type CTLog = NonNullable<Parameters<typeof initializeCA>[1]>;

/**
 * A CT log issuing RFC 6962 SCTs over the precertificate (the mock's own log encodes SCTs that
 * @sigstore/core cannot read). Answers the SCT with its uint16 length, which the mock CA wraps
 * into the SCT list extension.
 */
function testCtLog(keyPair: KeyPairKeyObjectResult, clock: Date | undefined): CTLog {
  const publicKey = keyPair.publicKey.export({ format: 'der', type: 'spki' });
  const logID = createHash('sha256').update(publicKey).digest();
  return {
    publicKey,
    logID,
    async log(certificate: ArrayBuffer, issuerID: ArrayBuffer): Promise<ArrayBuffer> {
      const tbs = X509Certificate.parse(Buffer.from(certificate)).tbsCertificate.toDER();
      const timestamp = Buffer.alloc(8);
      timestamp.writeBigUInt64BE(BigInt((clock ?? new Date()).getTime()));
      const tbsLength = Buffer.alloc(3);
      tbsLength.writeUIntBE(tbs.length, 0, 3);
      const signed = Buffer.concat([
        Buffer.from([0, 0]), // version v1, certificate_timestamp
        timestamp,
        Buffer.from([0, 1]), // precert_entry
        Buffer.from(issuerID),
        tbsLength,
        tbs,
        Buffer.from([0, 0]), // no extensions
      ]);
      const signature = sign('sha256', signed, keyPair.privateKey);
      const sigLength = Buffer.alloc(2);
      sigLength.writeUInt16BE(signature.length);
      const sct = Buffer.concat([Buffer.from([0]), logID, timestamp, Buffer.from([0, 0, 4, 3]), sigLength, signature]);
      const sctLength = Buffer.alloc(2);
      sctLength.writeUInt16BE(sct.length);
      const out = Buffer.concat([sctLength, sct]);
      return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
    },
  };
}

let shared: Promise<TestTrustMaterial> | undefined;

/** One shared set of test trust material per process (what `rekorBundle: true` signs with). */
export function testTrustMaterial(): Promise<TestTrustMaterial> {
  shared ??= createTestTrustMaterial();
  return shared;
}
