/**
 * The test Fulcio of every keyless spec and signer: a certificate authority issuing short-lived
 * code-signing certificates naming an identity (SAN URI) and its OIDC issuer (Fulcio's extensions,
 * and any other Fulcio extension asked for), with an SCT from a test CT log embedded as Fulcio
 * does. (@sigstore/mock's CA and CT log, with the pkijs version installed, write SCTs with an empty
 * signature and no per-SCT length, which @sigstore/core 3 rejects; this pair writes RFC 6962's
 * encoding.)
 */
import 'reflect-metadata';
import { createHash, generateKeyPairSync, sign as cryptoSign, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { X509Certificate } from '@sigstore/core';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKeyPair = webcrypto.CryptoKeyPair;

const OID_SCT_LIST = '1.3.6.1.4.1.11129.2.4.2';
const OID_ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';
const OID_ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';
const ECDSA: webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as webcrypto.EcdsaParams;
const MINUTE = 60_000;
/** Fulcio's first extensions (issuer v1, GitHub workflow trigger, sha, name, repository, ref): raw bytes. */
const LEGACY_EXTENSION = /^1\.3\.6\.1\.4\.1\.57264\.1\.[1-6]$/;

export interface TestFulcio {
  rootCertificate: Buffer;
  /**
   * A certificate for the SPKI DER key, valid from a minute before the CA's clock for ten minutes;
   * `extensions` are more Fulcio extensions, OID -> value (1.3.6.1.4.1.57264.1.1 to .6 written raw,
   * as Fulcio's legacy ones, the others as UTF8String).
   */
  issueCertificate(
    publicKey: Buffer,
    subjectAltName: string,
    issuer: string,
    extensions?: Readonly<Record<string, string>>,
  ): Promise<Buffer>;
}

/** `clock`: when certificates are issued (now by default), for expired-certificate cases. */
export async function createTestFulcio(ctlog?: TestCtLog, clock?: Date): Promise<TestFulcio> {
  const keys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name = 'CN=sigstore, O=edict.test';
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name,
    notBefore: new Date(Date.now() - 24 * 60 * MINUTE),
    notAfter: new Date(Date.now() + 365 * 24 * 60 * MINUTE),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const rootSpki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return {
    rootCertificate: Buffer.from(root.rawData),
    async issueCertificate(publicKeyDer, subjectAltName, issuer, more = {}) {
      const publicKey = await webcrypto.subtle.importKey('spki', publicKeyDer, ECDSA, true, ['verify']);
      const now = (clock ?? new Date()).getTime();
      const base = {
        serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
          .toString('hex')
          .replace(/^[89a-f]/, '1'),
        subject: '',
        issuer: root.subject,
        notBefore: new Date(now - MINUTE),
        notAfter: new Date(now + 10 * MINUTE),
        publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: SIGNING,
      };
      const extensions: x509.Extension[] = [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.codeSigning]),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: subjectAltName }], true),
        new x509.Extension(OID_ISSUER_V1, false, Buffer.from(issuer)),
        new x509.Extension(OID_ISSUER_V2, false, utf8String(issuer)),
        ...Object.entries(more).map(
          ([oid, value]) =>
            new x509.Extension(oid, false, LEGACY_EXTENSION.test(oid) ? Buffer.from(value) : utf8String(value)),
        ),
      ];
      if (!ctlog) return Buffer.from((await x509.X509CertificateGenerator.create({ ...base, extensions })).rawData);
      const preCert = await x509.X509CertificateGenerator.create({ ...base, extensions });
      const tbs = X509Certificate.parse(Buffer.from(preCert.rawData)).tbsCertificate.toDER();
      const sct = ctlog.log(tbs, createHash('sha256').update(rootSpki).digest());
      // SignedCertificateTimestampList: uint16 list length, then each SCT with its uint16 length.
      const list = Buffer.concat([u16(sct.length + 2), u16(sct.length), sct]);
      const sctExtension = new x509.Extension(OID_SCT_LIST, false, octetString(list));
      return Buffer.from(
        (await x509.X509CertificateGenerator.create({ ...base, extensions: [...extensions, sctExtension] })).rawData,
      );
    },
  };
}

function u16(n: number): Buffer {
  return Buffer.from([n >> 8, n & 0xff]);
}

function derLength(n: number): Buffer {
  return n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
}

function octetString(content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x04]), derLength(content.length), content]);
}

function utf8String(text: string): Buffer {
  const content = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from([0x0c]), derLength(content.length), content]);
}

export interface TestCtLog {
  /** SPKI DER. */
  publicKey: Buffer;
  /** SHA-256 of the public key. */
  logID: Buffer;
  /** An RFC 6962 SCT (TLS encoding) for a precertificate's TBS issued by the key hashed to issuerKeyHash. */
  log(tbs: Buffer, issuerKeyHash: Buffer): Buffer;
}

/** `clock`: the SCTs' time (now by default). */
export function createTestCtLog(clock?: Date): TestCtLog {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const logID = createHash('sha256').update(spki).digest();
  return {
    publicKey: spki,
    logID,
    log: (tbs, issuerKeyHash) => signedCertificateTimestamp(privateKey, logID, tbs, issuerKeyHash, clock),
  };
}

function signedCertificateTimestamp(
  key: KeyObject,
  logID: Buffer,
  tbs: Buffer,
  issuerKeyHash: Buffer,
  clock: Date | undefined,
): Buffer {
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt((clock ?? new Date()).getTime()));
  const u24 = Buffer.from([tbs.length >> 16, (tbs.length >> 8) & 0xff, tbs.length & 0xff]);
  // digitally-signed: version, certificate_timestamp, timestamp, precert_entry, issuer key hash, TBS, no extensions.
  const signed = Buffer.concat([Buffer.from([0, 0]), timestamp, u16(1), issuerKeyHash, u24, tbs, u16(0)]);
  const signature = cryptoSign('sha256', signed, key);
  // SCT: version, log id, timestamp, no extensions, sha256 (4) / ecdsa (3), signature.
  return Buffer.concat([
    Buffer.from([0]),
    logID,
    timestamp,
    u16(0),
    Buffer.from([4, 3]),
    u16(signature.length),
    signature,
  ]);
}
