/**
 * Test signers writing cosign's OCI layout (what `cosign sign` / `cosign attest` push): a
 * simple-signing payload or a DSSE in-toto envelope as a layer of `sha256-<hex>.sig` / `.att`,
 * with the signature, certificate, chain, Rekor bundle and RFC 3161 timestamp annotations; or a
 * signature as an OCI 1.1 referrer of the image (cosign's OCI 1.1 layout).
 */
import { createHash, createPrivateKey, createPublicKey, randomInt, sign, type KeyObject } from 'node:crypto';
import type { JsonObject } from '@edict/foundation';
import { parseImageRef } from '../model';
import type { OciWriter } from './oci-writer';
import { testTrustMaterial, type TLog, type TSA } from './trust-material';

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json';
const DSSE = 'application/vnd.dsse.envelope.v1+json';
const IN_TOTO = 'application/vnd.in-toto+json';
const SIGNATURE_ARTIFACT_TYPE = 'application/vnd.dev.cosign.artifact.sig.v1+json';

export interface CosignSignOptions {
  /** Put into the payload's `optional` (cosign sign -a). */
  annotations?: Record<string, string>;
  /** PEM signing certificate (keyless or certificate signing) and its chain. */
  certificate?: string;
  chain?: string;
  /** Log the signature in Rekor and attach the bundle: `true` uses the shared test Rekor. */
  rekorBundle?: boolean | TLog;
  /** Attach an RFC 3161 timestamp from this test TSA. */
  tsa?: TSA;
  /** Where `.sig`/`.att` go (COSIGN_REPOSITORY), `registry/repository`. */
  signatureRepository?: string;
  /**
   * Store the signature as an OCI 1.1 referrer of the image (cosign's
   * `--registry-referrers-mode=oci-1-1`): its own manifest with artifactType and config media type
   * `application/vnd.dev.cosign.artifact.sig.v1+json` and the image as subject, no `.sig` tag.
   */
  oci11?: boolean;
  /** Digest of the signed data for key signatures (default sha256). */
  hashAlgorithm?: 'sha224' | 'sha256' | 'sha384' | 'sha512';
  /** Sign a claim about this digest instead of the image's (tampered / mismatching signatures). */
  claimDigest?: string;
}

async function target(
  writer: OciWriter,
  image: string,
  signatureRepository: string | undefined,
): Promise<{ repo: string; digest: string; sigRepo: string }> {
  const ref = parseImageRef(image);
  let digest = ref.digest;
  if (!digest) {
    const descriptor = await writer.resolve(ref.repo, ref.tag ?? 'latest');
    if (!descriptor) throw new Error(`cosignSign: ${image} not found`);
    digest = descriptor.digest;
  }
  const sigRepo = signatureRepository ? parseImageRef(signatureRepository).repo : ref.repo;
  return { repo: ref.repo, digest, sigRepo };
}

function signData(key: KeyObject, data: Buffer, hash: string): Buffer {
  return key.asymmetricKeyType === 'ed25519' ? sign(null, data, key) : sign(hash, data, key);
}

function publicKeyText(key: KeyObject, certificate: string | undefined): string {
  return certificate ?? (createPublicKey(key).export({ format: 'pem', type: 'spki' }) as string);
}

async function rekorAnnotation(option: boolean | TLog | undefined, entry: object): Promise<string | undefined> {
  if (!option) return undefined;
  const tlog = option === true ? (await testTrustMaterial()).rekor : option;
  const logged = Object.values(await tlog.log(entry))[0] as {
    body: string;
    integratedTime: number;
    logID: string;
    logIndex: number;
    verification: { signedEntryTimestamp: string };
  };
  return JSON.stringify({
    SignedEntryTimestamp: logged.verification.signedEntryTimestamp,
    Payload: {
      body: logged.body,
      integratedTime: logged.integratedTime,
      logIndex: logged.logIndex,
      logID: logged.logID,
    },
  });
}

async function timestampAnnotation(tsa: TSA | undefined, data: Buffer): Promise<string | undefined> {
  if (!tsa) return undefined;
  const response = await tsa.timestamp({
    artifactHash: createHash('sha256').update(data).digest(),
    hashAlgorithmOID: '2.16.840.1.101.3.4.2.1',
    nonce: randomInt(1_000_000),
    policyOID: '1.2.3.4',
    certReq: true,
  });
  return JSON.stringify({ SignedRFC3161Timestamp: response.toString('base64') });
}

type Layer = JsonObject & { digest: string };

/** Pushes cosign's signature-image config (its rootfs lists the layers) and answers its descriptor. */
async function pushSignatureConfig(
  writer: OciWriter,
  repo: string,
  layers: Layer[],
  mediaType: string,
): Promise<JsonObject> {
  const config = await writer.pushBlob(
    repo,
    Buffer.from(
      JSON.stringify({
        architecture: '',
        created: '0001-01-01T00:00:00Z',
        history: [{ created: '0001-01-01T00:00:00Z' }],
        os: '',
        rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
        config: {},
      }),
    ),
  );
  return { mediaType, size: config.size, digest: config.digest };
}

async function pushLayer(
  writer: OciWriter,
  repo: string,
  payload: Buffer,
  mediaType: string,
  annotations: Record<string, string>,
): Promise<Layer> {
  const layer = await writer.pushBlob(repo, payload);
  return { mediaType, size: layer.size, digest: layer.digest, annotations };
}

/** Adds one layer to `<algo>-<hex>.<suffix>`, keeping the layers already there (as cosign appends). */
async function appendLayer(writer: OciWriter, repo: string, tag: string, layer: Layer): Promise<void> {
  const existing = await writer.getManifest(repo, tag);
  const layers = [...((existing?.json.layers as Layer[] | undefined) ?? []), layer];
  const config = await pushSignatureConfig(writer, repo, layers, 'application/vnd.oci.image.config.v1+json');
  await writer.pushManifest(repo, tag, { schemaVersion: 2, mediaType: MANIFEST, config, layers }, MANIFEST);
}

/**
 * cosign's OCI 1.1 layout: the signature image's manifest with the artifact type as its config media
 * type and `artifactType`, the image as `subject`, pushed by digest and listed as a referrer.
 */
async function pushSignatureReferrer(
  writer: OciWriter,
  imageRepo: string,
  repo: string,
  subjectDigest: string,
  layer: Layer,
): Promise<void> {
  const subject = await writer.resolve(imageRepo, subjectDigest);
  if (!subject) throw new Error(`cosignSign: ${imageRepo}@${subjectDigest} not found`);
  const config = await pushSignatureConfig(writer, repo, [layer], SIGNATURE_ARTIFACT_TYPE);
  const manifest: JsonObject = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    config,
    layers: [layer],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
    artifactType: SIGNATURE_ARTIFACT_TYPE,
  };
  await writer.pushReferrer(repo, subjectDigest, manifest, MANIFEST);
}

function certificateAnnotations(opts: CosignSignOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (opts.certificate) out['dev.sigstore.cosign/certificate'] = opts.certificate;
  if (opts.chain) out['dev.sigstore.cosign/chain'] = opts.chain;
  return out;
}

/** Signs `image` as `cosign sign` does and pushes the signature. */
export async function cosignSign(
  writer: OciWriter,
  image: string,
  privateKeyPem: string,
  opts: CosignSignOptions = {},
): Promise<void> {
  const { repo, digest, sigRepo } = await target(writer, image, opts.signatureRepository);
  const hash = opts.hashAlgorithm ?? 'sha256';
  const key = createPrivateKey(privateKeyPem);
  const payload = Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': repo },
        image: { 'docker-manifest-digest': opts.claimDigest ?? digest },
        type: 'cosign container image signature',
      },
      optional: opts.annotations ?? null,
    }),
  );
  const signature = signData(key, payload, hash);
  const annotations: Record<string, string> = {
    'dev.cosignproject.cosign/signature': signature.toString('base64'),
    ...certificateAnnotations(opts),
  };
  const bundle = await rekorAnnotation(opts.rekorBundle, {
    apiVersion: '0.0.1',
    kind: 'hashedrekord',
    spec: {
      data: { hash: { algorithm: hash, value: createHash(hash).update(payload).digest('hex') } },
      signature: {
        content: signature.toString('base64'),
        publicKey: { content: Buffer.from(publicKeyText(key, opts.certificate)).toString('base64') },
      },
    },
  });
  if (bundle) annotations['dev.sigstore.cosign/bundle'] = bundle;
  const timestamp = await timestampAnnotation(opts.tsa, signature);
  if (timestamp) annotations['dev.sigstore.cosign/rfc3161timestamp'] = timestamp;
  const layer = await pushLayer(writer, sigRepo, payload, SIMPLE_SIGNING, annotations);
  if (opts.oci11) await pushSignatureReferrer(writer, repo, sigRepo, digest, layer);
  else await appendLayer(writer, sigRepo, `${digest.replace(':', '-')}.sig`, layer);
}

export interface CosignAttestOptions extends Omit<CosignSignOptions, 'annotations' | 'claimDigest' | 'oci11'> {
  /** Name this digest as the statement's subject instead of the image's. */
  subjectDigest?: string;
}

/** Attests `predicate` of `predicateType` about `image` as `cosign attest` does (DSSE, in-toto). */
export async function cosignAttest(
  writer: OciWriter,
  image: string,
  privateKeyPem: string,
  predicate: JsonObject,
  predicateType: string,
  opts: CosignAttestOptions = {},
): Promise<void> {
  const { repo, digest, sigRepo } = await target(writer, image, opts.signatureRepository);
  const key = createPrivateKey(privateKeyPem);
  const [algorithm, hex] = (opts.subjectDigest ?? digest).split(':');
  const statement = Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v0.1',
      predicateType,
      subject: [{ name: repo, digest: { [algorithm]: hex } }],
      predicate,
    }),
  );
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${IN_TOTO.length} ${IN_TOTO} ${statement.length} `), statement]);
  const signature = signData(key, pae, opts.hashAlgorithm ?? 'sha256');
  const envelope = Buffer.from(
    JSON.stringify({
      payloadType: IN_TOTO,
      payload: statement.toString('base64'),
      signatures: [{ keyid: '', sig: signature.toString('base64') }],
    }),
  );
  const annotations: Record<string, string> = {
    'dev.cosignproject.cosign/signature': '',
    predicateType,
    ...certificateAnnotations(opts),
  };
  const bundle = await rekorAnnotation(opts.rekorBundle, {
    apiVersion: '0.0.2',
    kind: 'intoto',
    spec: {
      content: {
        envelope: {
          payloadType: IN_TOTO,
          signatures: [
            {
              sig: Buffer.from(signature.toString('base64')).toString('base64'),
              publicKey: Buffer.from(publicKeyText(key, opts.certificate)).toString('base64'),
            },
          ],
        },
        hash: { algorithm: 'sha256', value: createHash('sha256').update(envelope).digest('hex') },
        payloadHash: { algorithm: 'sha256', value: createHash('sha256').update(statement).digest('hex') },
      },
    },
  });
  if (bundle) annotations['dev.sigstore.cosign/bundle'] = bundle;
  // cosign timestamps an attestation's whole envelope.
  const timestamp = await timestampAnnotation(opts.tsa, envelope);
  if (timestamp) annotations['dev.sigstore.cosign/rfc3161timestamp'] = timestamp;
  const layer = await pushLayer(writer, sigRepo, envelope, DSSE, annotations);
  await appendLayer(writer, sigRepo, `${digest.replace(':', '-')}.att`, layer);
}
