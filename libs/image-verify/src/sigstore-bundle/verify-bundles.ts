/**
 * Kyverno's `type: SigstoreBundle` (pkg/cosign sigstore.go on sigstore-go), here on
 * @sigstore/verify: every bundle referrer of the image is verified against the trust material
 * (the trusted root, plus the policy's own Fulcio roots, Rekor and CT log keys and TSA chain, or
 * its signing keys), with Kyverno's thresholds (a transparency log entry unless
 * `rekor.ignoreTlog`, an observer timestamp unless `ctlog.ignoreSCT`; with both ignored,
 * certificates are checked at the current time; a certificate transparency SCT unless
 * `ctlog.ignoreSCT`, as cosign asks, or never with `bundleScts: false`, as Kyverno's classic
 * bundle verifier asks sigstore-go for none), the
 * certificate identity (subject and issuer, exact or Go regexp) and the image digest as the signed
 * artifact (the message digest, or a subject of the in-toto statement). At least one verified
 * bundle verifies the image; attestations are the verified in-toto statements of the predicate type.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { Bundle } from '@sigstore/bundle';
import { X509Certificate } from '@sigstore/core';
import { Verifier, toSignedEntity, type SignedEntity, type TrustMaterial } from '@sigstore/verify';
import { errorMessage, goRegexpMatch, type JsonObject } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import type {
  AttestationVerification,
  CosignVerifier,
  KeylessIdentity,
  SignatureVerification,
  VerifiedSignature,
  VerifyOptions,
} from '../model';
import { SctIgnored } from '../cosign/sct-ignored';
import { RegistryAccess } from '../notary/registry';
import { withSigningTime } from '../rfc3161-time';
import type { OciReader } from '../ports';
import { trustMaterialOf, trustedRootOf } from '../tuf/trusted-root';
import { fetchBundles, type FetchedBundle } from './fetch-bundles';

const IN_TOTO = 'application/vnd.in-toto+json';
/** Kyverno's default `rekor.url`. */
const DEFAULT_REKOR_URL = 'https://rekor.sigstore.dev';
const SHA2_256 = 1; // protobuf-specs HashAlgorithm.SHA2_256

export async function verifyBundleSignatures(
  oci: OciReader,
  image: string,
  verifier: CosignVerifier,
  options: VerifyOptions = {},
): Promise<SignatureVerification> {
  const result = await verifyBundles(oci, image, undefined, verifier, options);
  if (result.verified.length === 0) {
    return { verified: false, digest: result.digest, reason: result.reason, signatures: [] };
  }
  return { verified: true, digest: result.digest, signatures: result.verified.map((v) => v.signature) };
}

export async function verifyBundleAttestations(
  oci: OciReader,
  image: string,
  predicateType: string,
  verifier: CosignVerifier,
  options: VerifyOptions = {},
): Promise<AttestationVerification> {
  const result = await verifyBundles(oci, image, predicateType, verifier, options);
  if (result.verified.length === 0)
    return { verified: false, digest: result.digest, reason: result.reason, statements: [] };
  // Kyverno's decodeStatementsFromBundles: the statement, with `type` set to its predicate type.
  const statements = result.verified.map((v) => ({ ...(v.statement as JsonObject), type: predicateType }));
  return { verified: true, digest: result.digest, statements };
}

interface Verified {
  signature: VerifiedSignature;
  statement?: JsonObject;
}

async function verifyBundles(
  oci: OciReader,
  image: string,
  predicateType: string | undefined,
  spec: CosignVerifier,
  options: VerifyOptions,
): Promise<{ digest: string; verified: Verified[]; reason: string }> {
  const checks = checksOf(spec);
  const registry = new RegistryAccess(oci, options);
  const { ref, descriptor } = await registry.target(image);
  const fetched = await fetchBundles(registry, ref.repo, descriptor.digest);
  const candidates =
    predicateType === undefined
      ? fetched
      : fetched.filter((b) => statementOf(b.bundle)?.predicateType === predicateType);
  if (candidates.length === 0) {
    const what =
      predicateType === undefined
        ? 'no Sigstore bundle is attached to the image'
        : `no Sigstore bundle holds an in-toto statement of predicate type ${predicateType}`;
    return { digest: descriptor.digest, verified: [], reason: `sigstore bundle verification failed: ${what}` };
  }
  const needsManifest = candidates.some((c) => c.bundle.content.$case === 'messageSignature');
  const manifestBytes = needsManifest ? (await registry.manifest(ref.repo, descriptor.digest)).bytes : undefined;
  const now = new Date(options.now?.() ?? Date.now());
  const verified: Verified[] = [];
  const reasons: string[] = [];
  for (const candidate of candidates) {
    try {
      verified.push(verifyOne(candidate, descriptor.digest, manifestBytes, checks, now));
    } catch (error) {
      if (error instanceof ImageVerificationError) throw error;
      reasons.push(`bundle ${candidate.digest}: ${errorMessage(error)}`);
    }
  }
  return {
    digest: descriptor.digest,
    verified,
    reason: `sigstore bundle verification failed: no matching signatures found (${reasons.join('; ')})`,
  };
}

interface Checks {
  /** One Verifier per trusted key (any verifying is enough), or one for the certificate authorities. */
  verifiers: Array<{ label: string; verifier: Verifier }>;
  identities: KeylessIdentity[];
  keyBased: boolean;
  currentTime: boolean;
  /** Whether certificate SCTs are checked (else they are not even read). */
  checkScts: boolean;
}

/** The policy's side, checked before any registry call: bad trust material is an error. */
function checksOf(spec: CosignVerifier): Checks {
  const keys = spec.publicKeys ?? [];
  const identities = spec.keyless?.identities ?? [];
  if (keys.length > 0 && identities.length > 0) {
    throw new ImageVerificationError('static key and certificate identity are mutually exclusive', { field: 'keys' });
  }
  if (keys.length === 0) {
    if (identities.length === 0)
      throw new ImageVerificationError('a Sigstore bundle needs keys or a keyless identity (subject and issuer)', {
        field: 'keyless',
      });
    identities.forEach((id, i) => {
      if (!id.subject && !id.subjectRegExp)
        throw new ImageVerificationError('there must be subject alternative name criteria (subject or subjectRegExp)', {
          field: `keyless.identities[${i}]`,
        });
      if (!id.issuer && !id.issuerRegExp)
        throw new ImageVerificationError('must specify issuer criteria (issuer or issuerRegExp)', {
          field: `keyless.identities[${i}]`,
        });
      for (const pattern of [id.subjectRegExp, id.issuerRegExp]) {
        if (pattern !== undefined) {
          try {
            goRegexpMatch(pattern, '');
          } catch (error) {
            throw new ImageVerificationError(errorMessage(error), { field: `keyless.identities[${i}]` });
          }
        }
      }
    });
  }
  if (spec.keyless?.extensions && Object.keys(spec.keyless.extensions).length > 0) {
    throw new ImageVerificationError(
      'certificate extensions other than the issuer are not checked for Sigstore bundles',
      { field: 'keyless.extensions' },
    );
  }
  const ignoreTlog = spec.rekor?.ignoreTlog ?? false;
  const ignoreSCT = spec.ctlog?.ignoreSCT ?? false;
  // SCTs of keyless certificates, unless ignored or (Kyverno's classic SigstoreBundle) never asked for.
  const checkScts = keys.length === 0 && !ignoreSCT && spec.bundleScts !== false;
  // The trusted root, then what the policy adds: Fulcio roots, its Rekor and CT log keys, a TSA chain.
  const root = trustedRootOf(spec.trustedRoot);
  const base: TrustMaterial = root
    ? trustMaterialOf(root)
    : { certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [], publicKey: noKey };
  if (spec.keyless?.roots)
    base.certificateAuthorities = [
      ...base.certificateAuthorities,
      customAuthority(spec.keyless.roots, 'keyless.roots'),
    ];
  if (spec.rekor?.publicKey)
    base.tlogs = [
      ...base.tlogs,
      logAuthority(spec.rekor.publicKey, 'rekor.pubkey', spec.rekor.url ?? DEFAULT_REKOR_URL),
    ];
  if (checkScts && spec.ctlog?.publicKey)
    base.ctlogs = [...base.ctlogs, logAuthority(spec.ctlog.publicKey, 'ctlog.pubkey', '')];
  if (spec.tsaCertChain)
    base.timestampAuthorities = [
      ...base.timestampAuthorities,
      customAuthority(spec.tsaCertChain, 'ctlog.tsaCertChain'),
    ];
  const missing = [
    keys.length === 0 && base.certificateAuthorities.length === 0 ? 'certificate authorities' : '',
    !ignoreTlog && base.tlogs.length === 0 ? 'a transparency log key (or rekor.ignoreTlog)' : '',
    checkScts && base.ctlogs.length === 0 ? 'a CT log key (or ctlog.ignoreSCT)' : '',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new ImageVerificationError(
      `Sigstore bundle verification needs a trusted root (configure a TUF root: tufRoot/tufMirror, or give trusted_root.json) or the policy's own ${missing.join(', ')}`,
      { field: 'trustedRoot' },
    );
  }
  const options = {
    tlogThreshold: ignoreTlog ? 0 : 1,
    ctlogThreshold: checkScts ? 1 : 0,
    timestampThreshold: ignoreTlog && ignoreSCT ? 0 : 1,
  };
  const verifiers =
    keys.length > 0
      ? keys.map((pem, i) => {
          const key = publicKey(pem, i);
          return {
            label: `key[${i}]`,
            verifier: new Verifier({ ...base, publicKey: () => ({ publicKey: key, validFor: () => true }) }, options),
          };
        })
      : [{ label: 'keyless', verifier: new Verifier(base, options) }];
  return { verifiers, identities, keyBased: keys.length > 0, currentTime: ignoreTlog && ignoreSCT, checkScts };
}

function verifyOne(
  candidate: FetchedBundle,
  digest: string,
  manifest: Uint8Array | undefined,
  checks: Checks,
  now: Date,
): Verified {
  const bundle = candidate.bundle;
  const statement = checkSubject(bundle, digest);
  const entity = withTimestampTimes(toSignedEntity(bundle, manifest ? Buffer.from(manifest) : undefined));
  if (checks.keyBased !== (entity.key.$case === 'public-key')) {
    throw new Error(
      checks.keyBased
        ? 'the bundle is signed with a certificate, the policy gives keys'
        : 'the bundle is signed with a key, the policy gives a keyless identity',
    );
  }
  const timed = checks.currentTime && entity.timestamps.length === 0 ? atCurrentTime(entity, now) : entity;
  const withTime = checks.checkScts ? timed : withoutScts(timed);
  const errors: string[] = [];
  for (const { label, verifier } of checks.verifiers) {
    try {
      const signer = verifier.verify(withTime);
      const subject = signer.identity?.subjectAlternativeName;
      const issuer = signer.identity?.extensions?.issuer;
      if (!checks.keyBased) matchIdentity(checks.identities, subject, issuer);
      return { signature: { verifier: `bundle ${label}`, subject, issuer, payload: statement }, statement };
    } catch (error) {
      errors.push(errorMessage(error));
    }
  }
  throw new Error(errors.join('; '));
}

/** The signed artifact must be the image: message digest, or a subject of the in-toto statement. */
function checkSubject(bundle: Bundle, digest: string): JsonObject | undefined {
  const [algorithm, hex] = digest.split(':');
  if (bundle.content.$case === 'messageSignature') {
    const md = bundle.content.messageSignature.messageDigest;
    if (algorithm !== 'sha256' || md.algorithm !== SHA2_256 || Buffer.from(md.digest).toString('hex') !== hex) {
      throw new Error(`the bundle's message digest is not the image digest ${digest}`);
    }
    return undefined;
  }
  const statement = statementOf(bundle);
  if (!statement) throw new Error(`the bundle's DSSE payload is not an in-toto statement (${IN_TOTO})`);
  const subjects = Array.isArray(statement.subject) ? (statement.subject as JsonObject[]) : [];
  if (!subjects.some((s) => (s?.digest as JsonObject | undefined)?.[algorithm] === hex)) {
    throw new Error(`no subject of the in-toto statement has the image digest ${digest}`);
  }
  return statement;
}

export function statementOf(bundle: Bundle): JsonObject | undefined {
  if (bundle.content.$case !== 'dsseEnvelope') return undefined;
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(envelope.payload).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

function matchIdentity(identities: KeylessIdentity[], subject: string | undefined, issuer: string | undefined): void {
  const matches = (exact: string | undefined, pattern: string | undefined, value: string | undefined): boolean =>
    value !== undefined && (exact ? exact === value : true) && (pattern ? goRegexpMatch(pattern, value) : true);
  if (
    identities.some(
      (id) => matches(id.subject, id.subjectRegExp, subject) && matches(id.issuer, id.issuerRegExp, issuer),
    )
  )
    return;
  throw new Error(
    `certificate identity (subject ${JSON.stringify(subject)}, issuer ${JSON.stringify(issuer)}) does not match the policy's`,
  );
}

/** The entity with its certificate's SCTs left unchecked (@sigstore/verify checks any it finds). */
function withoutScts(entity: SignedEntity): SignedEntity {
  if (entity.key.$case !== 'certificate') return entity;
  return { ...entity, key: { $case: 'certificate', certificate: new SctIgnored(entity.key.certificate.root) } };
}

/** The entity with its RFC 3161 timestamps' times readable whatever their fraction (rfc3161-time.ts). */
function withTimestampTimes(entity: SignedEntity): SignedEntity {
  for (const timestamp of entity.timestamps)
    if (timestamp.$case === 'timestamp-authority') withSigningTime(timestamp.timestamp);
  return entity;
}

/** Kyverno's WithCurrentTime: with tlog and SCT ignored, the certificate chain is checked now. */
function atCurrentTime(entity: SignedEntity, now: Date): SignedEntity {
  const seconds = String(Math.floor(now.getTime() / 1000));
  const pseudo = {
    integratedTime: seconds,
    logId: { keyId: Buffer.from('current-time') },
  } as unknown as SignedEntity['tlogEntries'][number];
  return { ...entity, timestamps: [{ $case: 'transparency-log', tlogEntry: pseudo }] };
}

function customAuthority(pem: string, field: string): TrustMaterial['certificateAuthorities'][number] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ImageVerificationError('no PEM certificate found', { field });
  try {
    // Leaf-most first, as a trusted root's chain lists them.
    const certChain = blocks.map((b) => X509Certificate.parse(b));
    return { certChain, validFor: { start: new Date(0), end: new Date(8640000000000000) } };
  } catch (error) {
    throw new ImageVerificationError(`invalid certificate: ${errorMessage(error)}`, { field });
  }
}

/**
 * A Rekor or CT log known by its PEM key; its log ID is the SHA-256 of the key (as Sigstore's). A
 * Rekor checkpoint names its log, which must appear in the log's URL (Kyverno's `rekor.url`).
 */
function logAuthority(pem: string, field: string, baseURL: string): TrustMaterial['tlogs'][number] {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new ImageVerificationError(`failed to load public key: ${errorMessage(error)}`, { field });
  }
  const logID = createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest();
  return { logID, baseURL, publicKey: key, validFor: { start: new Date(0), end: new Date(8640000000000000) } };
}

function publicKey(pem: string, index: number): KeyObject {
  try {
    return createPublicKey(pem);
  } catch (error) {
    throw new ImageVerificationError(`failed to load public key: ${errorMessage(error)}`, { field: `keys[${index}]` });
  }
}

function noKey(hint: string): never {
  throw new Error(`no trusted public key for hint ${JSON.stringify(hint)}`);
}
