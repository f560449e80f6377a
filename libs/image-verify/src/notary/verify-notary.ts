/**
 * Kyverno's Notary verifier (pkg/notary, pkg/imageverification/imageverifiers/notary) over the
 * OciReader port: signatures are referrers of the image manifest with artifact type
 * `application/vnd.cncf.notary.signature`, one envelope layer each; the first of at most ten that
 * verifies makes the image verified (notation.Verify). Attestations are referrers whose artifact
 * type is the attestation type, each signed in turn by a notation signature; the verified one's
 * payload comes back as a statement (`type` and `predicate` over its manifest, as Kyverno builds it).
 */
import { errorMessage, type JsonObject } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import type { AttestationVerification, NotaryVerifier, SignatureVerification, VerifyOptions } from '../model';
import type { OciDescriptor, OciReader } from '../ports';
import { CertificateChainError, parsePemCertificates } from './cert-chain';
import { MAX_BLOB_BYTES, MAX_REFERRERS, MAX_SIGNATURE_ATTEMPTS, NOTARY_SIGNATURE_ARTIFACT_TYPE } from './constants';
import { EnvelopeError, parseEnvelope } from './envelope';
import { LayerError, RegistryAccess } from './registry';
import { NotarySignatureError, verifyEnvelope, type EnvelopeVerified, type NotaryTrust } from './verify-envelope';

export async function verifyNotarySignatures(
  oci: OciReader,
  image: string,
  verifier: NotaryVerifier,
  options: VerifyOptions = {},
): Promise<SignatureVerification> {
  const trust = trustOf(verifier);
  const registry = new RegistryAccess(oci, options);
  const { ref, descriptor } = await registry.target(image);
  const outcome = await verifyArtifact(registry, ref.repo, descriptor, trust, now(options));
  if ('reason' in outcome)
    return { verified: false, digest: descriptor.digest, reason: outcome.reason, signatures: [] };
  return {
    verified: true,
    digest: descriptor.digest,
    signatures: [
      {
        verifier: 'notary',
        subject: outcome.signer.subject,
        issuer: outcome.signer.x509.issuer.replace(/\n/g, ', '),
        payload: outcome.payload,
      },
    ],
  };
}

export async function verifyNotaryAttestations(
  oci: OciReader,
  image: string,
  attestationType: string,
  verifier: NotaryVerifier,
  options: VerifyOptions = {},
): Promise<AttestationVerification> {
  const trust = trustOf(verifier);
  const registry = new RegistryAccess(oci, options);
  const { ref, descriptor } = await registry.target(image);
  const attestations = await registry.referrers(ref.repo, descriptor.digest, attestationType, MAX_REFERRERS);
  const reasons: string[] = [];
  // Each attestation costs a notation verification: as many as signatures are tried per artifact.
  for (const attestation of attestations.slice(0, MAX_SIGNATURE_ATTEMPTS)) {
    const outcome = await verifyArtifact(registry, ref.repo, attestation, trust, now(options));
    if ('reason' in outcome) {
      reasons.push(`failed to verify attestation ${attestationType}, digest ${attestation.digest}: ${outcome.reason}`);
      continue;
    }
    const statement = await attestationStatement(registry, ref.repo, attestation, attestationType);
    if ('reason' in statement) {
      reasons.push(statement.reason);
      continue;
    }
    return { verified: true, digest: descriptor.digest, statements: [statement.statement] };
  }
  const reason =
    reasons.length > 0
      ? reasons.join('; ')
      : `attestation verification failed, no attestations found for type: ${attestationType}`;
  return { verified: false, digest: descriptor.digest, reason, statements: [] };
}

function trustOf(verifier: NotaryVerifier): NotaryTrust {
  let ca;
  let tsa;
  try {
    ca = parsePemCertificates(verifier.certs ?? '');
  } catch (error) {
    throw new ImageVerificationError(`failed to parse certificates: ${errorMessage(error)}`, { field: 'certs' });
  }
  if (ca.length === 0)
    throw new ImageVerificationError('failed to parse certificates: no PEM certificate found', { field: 'certs' });
  try {
    tsa = parsePemCertificates(verifier.tsaCerts ?? '');
  } catch (error) {
    throw new ImageVerificationError(`failed to parse certificates: ${errorMessage(error)}`, { field: 'tsaCerts' });
  }
  if (verifier.tsaCerts?.trim() && tsa.length === 0) {
    throw new ImageVerificationError('failed to parse certificates: no PEM certificate found', { field: 'tsaCerts' });
  }
  return { ca, tsa };
}

type Outcome = EnvelopeVerified | { reason: string };

/** notation.Verify for one artifact: its notation signatures, first verified wins. */
async function verifyArtifact(
  registry: RegistryAccess,
  repo: string,
  target: OciDescriptor,
  trust: NotaryTrust,
  at: Date,
): Promise<Outcome> {
  const signatures = await registry.referrers(repo, target.digest, NOTARY_SIGNATURE_ARTIFACT_TYPE, MAX_REFERRERS);
  if (signatures.length === 0) {
    return {
      reason: `no signature is associated with "${repo}@${target.digest}", make sure the artifact was signed successfully`,
    };
  }
  const reasons: string[] = [];
  for (const signature of signatures.slice(0, MAX_SIGNATURE_ATTEMPTS)) {
    const manifest = await registry.manifest(repo, signature.digest);
    try {
      const layer = await registry.onlyLayer(repo, manifest, MAX_BLOB_BYTES);
      const subject = manifest.json.subject as JsonObject | undefined;
      if (subject?.digest !== target.digest)
        throw new NotarySignatureError(`signature manifest subject is not ${target.digest}`);
      return verifyEnvelope(parseEnvelope(layer.descriptor.mediaType, layer.bytes), target, trust, at);
    } catch (error) {
      if (!(
        error instanceof NotarySignatureError ||
        error instanceof EnvelopeError ||
        error instanceof LayerError ||
        error instanceof CertificateChainError
      )) {
        throw error;
      }
      reasons.push(`signature ${signature.digest}: ${error.message}`);
    }
  }
  const limit =
    signatures.length > MAX_SIGNATURE_ATTEMPTS
      ? ` (only the first ${MAX_SIGNATURE_ATTEMPTS} of ${signatures.length} were evaluated)`
      : '';
  return {
    reason: `signature verification failed for all the signatures associated with ${repo}@${target.digest}${limit}: ${reasons.join('; ')}`,
  };
}

/** Kyverno's extractStatement: the referrer manifest plus `type` and its one JSON layer as `predicate`. */
async function attestationStatement(
  registry: RegistryAccess,
  repo: string,
  attestation: OciDescriptor,
  attestationType: string,
): Promise<{ statement: JsonObject } | { reason: string }> {
  const manifest = await registry.manifest(repo, attestation.digest);
  let bytes: Uint8Array;
  try {
    ({ bytes } = await registry.onlyLayer(repo, manifest, MAX_BLOB_BYTES));
  } catch (error) {
    if (error instanceof LayerError) return { reason: `attestation ${attestation.digest}: ${error.message}` };
    throw error;
  }
  let predicate: unknown;
  try {
    predicate = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { reason: `attestation ${attestation.digest}: its payload is not JSON` };
  }
  const statement = structuredClone(manifest.json);
  if (statement.type === undefined || statement.type === null)
    statement.type = attestation.artifactType ?? attestationType;
  if (statement.predicate === undefined || statement.predicate === null) statement.predicate = predicate as JsonObject;
  return { statement };
}

function now(options: VerifyOptions): Date {
  return new Date(options.now?.() ?? Date.now());
}
