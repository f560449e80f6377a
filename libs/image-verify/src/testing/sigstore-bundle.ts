/**
 * Sigstore bundles for specs, made offline with @sigstore/mock's trust material (a Fulcio-like CA
 * with its CT log, a Rekor-like log, a timestamp authority): `createSigstoreTestTrust` makes the
 * services and the matching `trusted_root.json`; `sigstoreBundleSign` signs an image (an in-toto
 * statement in DSSE, or a message signature over the manifest) and pushes a v0.3 bundle as an OCI
 * referrer, as `cosign sign/attest --new-bundle-format` does.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomInt,
  sign as cryptoSign,
} from 'node:crypto';
import { dsse } from '@sigstore/core';
import { initializeTLog, initializeTSA } from '@sigstore/mock';
import type { JsonObject } from '@edict/foundation';
import { parseImageRef } from '../model';
import type { OciDescriptor } from '../ports';
import { createTestCtLog, createTestFulcio, type TestCtLog, type TestFulcio } from './fulcio';
import type { OciWriter } from './oci-writer';

export const SIGSTORE_BUNDLE_V03 = 'application/vnd.dev.sigstore.bundle.v0.3+json';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const EMPTY = 'application/vnd.oci.empty.v1+json';
const IN_TOTO = 'application/vnd.in-toto+json';
const COSIGN_SIGN_PREDICATE = 'https://sigstore.dev/cosign/sign/v1';

type Mock<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

export interface SigstoreTestTrust {
  /** The Sigstore trusted root (JSON text) naming this CA, logs and TSA. */
  trustedRootJson: string;
  ca: TestFulcio;
  tlog: Mock<typeof initializeTLog>;
  ctlog: TestCtLog;
  tsa: Mock<typeof initializeTSA>;
}

/** Fresh in-process Fulcio/Rekor/CT/TSA trust material (no network) and its trusted root. */
export async function createSigstoreTestTrust(): Promise<SigstoreTestTrust> {
  const pair = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ctlog = createTestCtLog();
  const ca = await createTestFulcio(ctlog);
  const tlog = await initializeTLog('https://rekor.edict.test', pair());
  const tsa = await initializeTSA(pair());
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const validFor = { start: '2020-01-01T00:00:00Z' };
  const logKey = (publicKey: Uint8Array, keyId: Uint8Array, baseUrl: string) => ({
    baseUrl,
    hashAlgorithm: 'SHA2_256',
    publicKey: { rawBytes: b64(publicKey), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor },
    logId: { keyId: b64(keyId) },
  });
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [logKey(tlog.publicKey, createHash('sha256').update(tlog.publicKey).digest(), 'https://rekor.edict.test')],
    certificateAuthorities: [
      {
        subject: { organization: 'edict.test', commonName: 'sigstore' },
        uri: 'https://fulcio.edict.test',
        certChain: { certificates: [{ rawBytes: b64(ca.rootCertificate) }] },
        validFor,
      },
    ],
    ctlogs: [logKey(ctlog.publicKey, ctlog.logID, 'https://ctfe.edict.test')],
    timestampAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'tsa' },
        uri: 'https://tsa.edict.test',
        certChain: { certificates: [{ rawBytes: b64(tsa.intCertificate) }, { rawBytes: b64(tsa.rootCertificate) }] },
        validFor,
      },
    ],
  };
  return { trustedRootJson: JSON.stringify(trustedRoot), ca, tlog, ctlog, tsa };
}

export interface SigstoreBundleSignOptions {
  /** Keyless: the certificate's identity (SAN URI) and OIDC issuer. */
  subject?: string;
  issuer?: string;
  /** A key instead of a certificate (PEM private key); the bundle carries a public-key hint. */
  privateKeyPem?: string;
  /** Attestation: an in-toto statement of this predicate type (default: cosign's sign predicate). */
  predicateType?: string;
  predicate?: JsonObject;
  /** A message signature over the manifest instead of a DSSE in-toto statement. */
  messageSignature?: boolean;
  /** Record in the transparency log (default true). */
  tlog?: boolean;
  /** Add an RFC 3161 timestamp from the TSA. */
  timestamp?: boolean;
  /** Sign this digest (`sha256:...`) as the subject instead of the image's. */
  subjectDigest?: string;
}

/** Signs `image` and pushes the bundle as a referrer; answers the referrer's descriptor. */
export async function sigstoreBundleSign(
  writer: OciWriter,
  image: string,
  trust: SigstoreTestTrust,
  options: SigstoreBundleSignOptions = {},
): Promise<OciDescriptor> {
  const ref = parseImageRef(image);
  const manifest = await writer.getManifest(ref.repo, ref.digest ?? ref.tag ?? 'latest');
  if (!manifest) throw new Error(`sigstoreBundleSign: ${image} not found`);
  const digest = options.subjectDigest ?? manifest.digest;
  const hex = digest.split(':')[1];

  const signingKey = options.privateKeyPem
    ? createPrivateKey(options.privateKeyPem)
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const publicPem = createPublicKey(signingKey).export({ type: 'spki', format: 'pem' }) as string;
  let certificate: Buffer | undefined;
  if (!options.privateKeyPem) {
    certificate = await trust.ca.issueCertificate(
      createPublicKey(signingKey).export({ type: 'spki', format: 'der' }) as Buffer,
      options.subject ?? 'https://github.com/edict/edict/.github/workflows/release.yml@refs/heads/main',
      options.issuer ?? 'https://token.actions.githubusercontent.com',
    );
  }
  const verifierText = Buffer.from(certificate ? toPem(certificate) : publicPem).toString('base64');

  let content: JsonObject;
  let rekorEntry: JsonObject;
  let signature: Buffer;
  if (options.messageSignature) {
    const artifactDigest = options.subjectDigest
      ? Buffer.from(hex, 'hex')
      : createHash('sha256').update(manifest.bytes).digest();
    signature = cryptoSign('sha256', manifest.bytes, signingKey);
    content = {
      messageSignature: {
        messageDigest: { algorithm: 'SHA2_256', digest: artifactDigest.toString('base64') },
        signature: signature.toString('base64'),
      },
    };
    rekorEntry = {
      apiVersion: '0.0.1',
      kind: 'hashedrekord',
      spec: {
        data: { hash: { algorithm: 'sha256', value: artifactDigest.toString('hex') } },
        signature: { content: signature.toString('base64'), publicKey: { content: verifierText } },
      },
    };
  } else {
    const statement = {
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: ref.repo, digest: { sha256: hex } }],
      predicateType: options.predicateType ?? COSIGN_SIGN_PREDICATE,
      predicate: options.predicate ?? {},
    };
    const payload = Buffer.from(JSON.stringify(statement));
    signature = cryptoSign('sha256', dsse.preAuthEncoding(IN_TOTO, payload), signingKey);
    content = {
      dsseEnvelope: {
        payload: payload.toString('base64'),
        payloadType: IN_TOTO,
        signatures: [{ sig: signature.toString('base64'), keyid: '' }],
      },
    };
    rekorEntry = {
      apiVersion: '0.0.1',
      kind: 'dsse',
      spec: {
        payloadHash: { algorithm: 'sha256', value: createHash('sha256').update(payload).digest('hex') },
        signatures: [{ signature: signature.toString('base64'), verifier: verifierText }],
      },
    };
  }

  const verificationMaterial: JsonObject = certificate
    ? { certificate: { rawBytes: certificate.toString('base64') } }
    : { publicKey: { hint: createHash('sha256').update(publicPem).digest('base64') } };
  verificationMaterial.tlogEntries = options.tlog === false ? [] : [await logEntry(trust, rekorEntry)];
  if (options.timestamp) {
    const response = await rfc3161Timestamp(trust.tsa, createHash('sha256').update(signature).digest());
    verificationMaterial.timestampVerificationData = {
      rfc3161Timestamps: [{ signedTimestamp: Buffer.from(response).toString('base64') }],
    };
  }
  const bundle = { mediaType: SIGSTORE_BUNDLE_V03, verificationMaterial, ...content };

  const blob = await writer.pushBlob(ref.repo, new TextEncoder().encode(JSON.stringify(bundle)));
  const config = await writer.pushBlob(ref.repo, new TextEncoder().encode('{}'));
  const referrer: JsonObject = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    artifactType: SIGSTORE_BUNDLE_V03,
    config: { mediaType: EMPTY, digest: config.digest, size: config.size },
    layers: [{ mediaType: SIGSTORE_BUNDLE_V03, digest: blob.digest, size: blob.size }],
    subject: { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length },
    annotations: {
      'dev.sigstore.bundle.content': options.messageSignature ? 'message-signature' : 'dsse-envelope',
      ...(options.messageSignature
        ? {}
        : { 'dev.sigstore.bundle.predicateType': options.predicateType ?? COSIGN_SIGN_PREDICATE }),
    },
  };
  const pushed = await writer.pushReferrer(ref.repo, manifest.digest, referrer, MANIFEST);
  return { ...pushed, artifactType: SIGSTORE_BUNDLE_V03 };
}

/**
 * A TimeStampResp (RFC 3161) over a SHA-256 hash from the mock TSA. Its genTime carries the
 * milliseconds with DER's trailing zeros dropped (`.12Z`), as Go TSAs write them too: verification
 * reads every form (rfc3161-time.ts).
 */
export async function rfc3161Timestamp(tsa: SigstoreTestTrust['tsa'], hash: Buffer): Promise<Buffer> {
  return tsa.timestamp({
    artifactHash: hash,
    hashAlgorithmOID: '2.16.840.1.101.3.4.2.1',
    nonce: randomInt(1_000_000),
    policyOID: '1.3.6.1.4.1.57264.2',
    certReq: true,
  });
}

/** The mock log's answer in a bundle's TransparencyLogEntry (JSON form). */
async function logEntry(trust: SigstoreTestTrust, proposed: JsonObject): Promise<JsonObject> {
  const answer = await trust.tlog.log(proposed);
  const entry = Object.values(answer)[0] as unknown as {
    body: string;
    integratedTime: number;
    logID: string;
    logIndex: number;
    verification: {
      signedEntryTimestamp: string;
      inclusionProof: { logIndex: number; treeSize: number; rootHash: string; hashes: string[]; checkpoint: string };
    };
  };
  const proof = entry.verification.inclusionProof;
  return {
    logIndex: String(entry.logIndex),
    logId: { keyId: Buffer.from(entry.logID, 'hex').toString('base64') },
    kindVersion: { kind: String(proposed.kind), version: String(proposed.apiVersion) },
    integratedTime: String(entry.integratedTime),
    inclusionPromise: { signedEntryTimestamp: entry.verification.signedEntryTimestamp },
    inclusionProof: {
      logIndex: String(proof.logIndex),
      rootHash: Buffer.from(proof.rootHash, 'hex').toString('base64'),
      treeSize: String(proof.treeSize),
      hashes: proof.hashes.map((h) => Buffer.from(h, 'hex').toString('base64')),
      checkpoint: { envelope: proof.checkpoint },
    },
    canonicalizedBody: entry.body,
  };
}

function toPem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}
