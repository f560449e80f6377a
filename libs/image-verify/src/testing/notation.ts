/**
 * A notation signer for specs and the signing tool (there is no notation binary here): builds real
 * Notary Project signature envelopes (JWS JSON flattened, or COSE_Sign1) over an image manifest's
 * descriptor and pushes them as OCI referrers, as `notation sign` does; `notationAttest` pushes an
 * attestation referrer of a given artifact type and signs it in turn.
 */
import { createHash, createPrivateKey, sign as cryptoSign, constants, type KeyObject } from 'node:crypto';
import { ASN1Obj } from '@sigstore/core';
import type { JsonObject } from '@edict/foundation';
import { parseImageRef } from '../model';
import type { OciDescriptor } from '../ports';
import { CborMap, CborTag, encodeCbor } from '../notary/cbor';
import {
  ALGORITHM_HASH,
  COSE_ALGORITHMS,
  COSE_MEDIA_TYPE,
  JWS_MEDIA_TYPE,
  NOTARY_PAYLOAD_TYPE,
  NOTARY_SIGNATURE_ARTIFACT_TYPE,
  SCHEME_X509,
  THUMBPRINT_ANNOTATION,
  type NotaryAlgorithm,
} from '../notary/constants';
import type { OciWriter } from './oci-writer';

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const EMPTY = 'application/vnd.oci.empty.v1+json';

export interface NotationSignOptions {
  /** PKCS#8 or SEC1 PEM private key of the signing certificate. */
  keyPem: string;
  /** PEM chain, signing certificate first, ending with the root. */
  certChainPem: string;
  scheme?: 'notary.x509' | 'notary.x509.signingAuthority';
  /** COSE_Sign1 instead of JWS. */
  cose?: boolean;
  signingTime?: Date;
  expiry?: Date;
  /** Signs this descriptor instead of the image's (a tampered or wrong target). */
  target?: Partial<OciDescriptor>;
  /** Adds an RFC 3161 countersignature: given the signature and hash, answers a TimeStampResp or TimeStampToken (DER). */
  timestamp?: (signature: Uint8Array, hash: 'sha256' | 'sha384' | 'sha512') => Promise<Uint8Array>;
  /** Extra protected headers (and crit entries) to test how verification treats them. */
  extraCritical?: Record<string, string>;
}

/** Signs `image` (tag or digest reference) and pushes the signature; answers the signature manifest's descriptor. */
export async function notationSign(
  writer: OciWriter,
  image: string,
  options: NotationSignOptions,
): Promise<OciDescriptor> {
  const ref = parseImageRef(image);
  const target = await writer.resolve(ref.repo, ref.digest ?? ref.tag ?? 'latest');
  if (!target) throw new Error(`notationSign: ${image} not found`);
  return signDescriptor(
    writer,
    ref.repo,
    { mediaType: target.mediaType, digest: target.digest, size: target.size },
    options,
  );
}

/**
 * Pushes `payload` as a referrer of `image` with `artifactType` (one JSON layer), then signs that
 * referrer with a notation signature; answers the attestation manifest's descriptor.
 */
export async function notationAttest(
  writer: OciWriter,
  image: string,
  artifactType: string,
  payload: JsonObject,
  options: NotationSignOptions,
): Promise<OciDescriptor> {
  const ref = parseImageRef(image);
  const subject = await writer.resolve(ref.repo, ref.digest ?? ref.tag ?? 'latest');
  if (!subject) throw new Error(`notationAttest: ${image} not found`);
  const layer = await writer.pushBlob(ref.repo, new TextEncoder().encode(JSON.stringify(payload)));
  const config = await writer.pushBlob(ref.repo, new TextEncoder().encode('{}'));
  const manifest: JsonObject = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    artifactType,
    config: { mediaType: EMPTY, digest: config.digest, size: config.size },
    layers: [{ mediaType: 'application/json', digest: layer.digest, size: layer.size }],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
  };
  const pushed = await writer.pushReferrer(ref.repo, subject.digest, manifest, MANIFEST);
  await signDescriptor(writer, ref.repo, { mediaType: MANIFEST, digest: pushed.digest, size: pushed.size }, options);
  return { ...pushed, mediaType: MANIFEST, artifactType };
}

async function signDescriptor(
  writer: OciWriter,
  repo: string,
  subject: OciDescriptor,
  options: NotationSignOptions,
): Promise<OciDescriptor> {
  const chain = pemCertificates(options.certChainPem);
  if (chain.length === 0) throw new Error('notationSign: certChainPem holds no certificate');
  const key = createPrivateKey(options.keyPem);
  const algorithm = algorithmOf(key);
  const payload = new TextEncoder().encode(JSON.stringify({ targetArtifact: { ...subject, ...options.target } }));
  const envelope = options.cose
    ? await coseEnvelope(payload, chain, key, algorithm, options)
    : await jwsEnvelope(payload, chain, key, algorithm, options);
  const blob = await writer.pushBlob(repo, envelope);
  const config = await writer.pushBlob(repo, new TextEncoder().encode('{}'));
  const thumbprints = chain.map((der) => createHash('sha256').update(der).digest('hex'));
  const manifest: JsonObject = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    artifactType: NOTARY_SIGNATURE_ARTIFACT_TYPE,
    config: { mediaType: EMPTY, digest: config.digest, size: config.size },
    layers: [{ mediaType: options.cose ? COSE_MEDIA_TYPE : JWS_MEDIA_TYPE, digest: blob.digest, size: blob.size }],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
    annotations: {
      [THUMBPRINT_ANNOTATION]: JSON.stringify(thumbprints),
      'org.opencontainers.image.created': new Date().toISOString(),
    },
  };
  const pushed = await writer.pushReferrer(repo, subject.digest, manifest, MANIFEST);
  return { ...pushed, artifactType: NOTARY_SIGNATURE_ARTIFACT_TYPE };
}

function timeHeaders(options: NotationSignOptions): { named: Record<string, Date>; crit: string[] } {
  const scheme = options.scheme ?? SCHEME_X509;
  const signingTime = options.signingTime ?? new Date(Math.floor(Date.now() / 1000) * 1000);
  const named: Record<string, Date> = {};
  const crit = ['io.cncf.notary.signingScheme'];
  if (scheme === SCHEME_X509) named['io.cncf.notary.signingTime'] = signingTime;
  else {
    named['io.cncf.notary.authenticSigningTime'] = signingTime;
    crit.push('io.cncf.notary.authenticSigningTime');
  }
  if (options.expiry) {
    named['io.cncf.notary.expiry'] = options.expiry;
    crit.push('io.cncf.notary.expiry');
  }
  return { named, crit };
}

async function jwsEnvelope(
  payload: Uint8Array,
  chain: Uint8Array[],
  key: KeyObject,
  algorithm: NotaryAlgorithm,
  options: NotationSignOptions,
): Promise<Uint8Array> {
  const { named, crit } = timeHeaders(options);
  const headers: Record<string, unknown> = {
    alg: algorithm,
    cty: NOTARY_PAYLOAD_TYPE,
    crit: [...crit, ...Object.keys(options.extraCritical ?? {})],
    'io.cncf.notary.signingScheme': options.scheme ?? SCHEME_X509,
    ...Object.fromEntries(Object.entries(named).map(([k, v]) => [k, v.toISOString().replace('.000Z', 'Z')])),
    ...options.extraCritical,
  };
  const protectedText = Buffer.from(JSON.stringify(headers)).toString('base64url');
  const payloadText = Buffer.from(payload).toString('base64url');
  const signature = signBytes(new TextEncoder().encode(`${protectedText}.${payloadText}`), key, algorithm);
  const header: Record<string, unknown> = {
    x5c: chain.map((der) => Buffer.from(der).toString('base64')),
    'io.cncf.notary.signingAgent': 'edict-tests/1.0',
  };
  if (options.timestamp) {
    header['io.cncf.notary.timestampSignature'] = Buffer.from(
      tokenOf(await options.timestamp(signature, ALGORITHM_HASH[algorithm])),
    ).toString('base64');
  }
  return new TextEncoder().encode(
    JSON.stringify({
      payload: payloadText,
      protected: protectedText,
      header,
      signature: Buffer.from(signature).toString('base64url'),
    }),
  );
}

async function coseEnvelope(
  payload: Uint8Array,
  chain: Uint8Array[],
  key: KeyObject,
  algorithm: NotaryAlgorithm,
  options: NotationSignOptions,
): Promise<Uint8Array> {
  const { named, crit } = timeHeaders(options);
  const coseAlg = Number(Object.entries(COSE_ALGORITHMS).find(([, name]) => name === algorithm)?.[0]);
  const protectedMap = new CborMap([
    [1, coseAlg],
    [2, [...crit, ...Object.keys(options.extraCritical ?? {})]],
    [3, NOTARY_PAYLOAD_TYPE],
    ['io.cncf.notary.signingScheme', options.scheme ?? SCHEME_X509],
    ...Object.entries(named).map(([k, v]) => [k, new CborTag(1, Math.floor(v.getTime() / 1000))] as [string, CborTag]),
    ...Object.entries(options.extraCritical ?? {}),
  ]);
  const protectedBytes = encodeCbor(protectedMap);
  const toBeSigned = encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]);
  const signature = signBytes(toBeSigned, key, algorithm);
  const unprotected = new CborMap([
    [33, chain],
    ['io.cncf.notary.signingAgent', 'edict-tests/1.0'],
  ]);
  if (options.timestamp) {
    unprotected.entries.push([
      'io.cncf.notary.timestampSignature',
      tokenOf(await options.timestamp(signature, ALGORITHM_HASH[algorithm])),
    ]);
  }
  return encodeCbor(new CborTag(18, [protectedBytes, unprotected, payload, signature]));
}

function signBytes(data: Uint8Array, key: KeyObject, algorithm: NotaryAlgorithm): Uint8Array {
  const hash = ALGORITHM_HASH[algorithm];
  return new Uint8Array(
    algorithm.startsWith('PS')
      ? cryptoSign(hash, data, {
          key,
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
        })
      : cryptoSign(hash, data, { key, dsaEncoding: 'ieee-p1363' }),
  );
}

function algorithmOf(key: KeyObject): NotaryAlgorithm {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa')
    return details.modulusLength === 4096 ? 'PS512' : details.modulusLength === 3072 ? 'PS384' : 'PS256';
  if (details.namedCurve === 'secp384r1') return 'ES384';
  if (details.namedCurve === 'secp521r1') return 'ES512';
  return 'ES256';
}

/** A TimeStampResp's token, or the token itself. */
function tokenOf(der: Uint8Array): Uint8Array {
  const asn = ASN1Obj.parseBuffer(Buffer.from(der));
  // TimeStampResp: SEQUENCE { PKIStatusInfo SEQUENCE, TimeStampToken ContentInfo }; ContentInfo starts with an OID.
  const isResponse = asn.subs.length === 2 && asn.subs[0].tag.number === 0x10 && asn.subs[1].tag.number === 0x10;
  return new Uint8Array(isResponse ? asn.subs[1].toDER() : der);
}

function pemCertificates(pem: string): Uint8Array[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new Uint8Array(Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''), 'base64')),
  );
}
