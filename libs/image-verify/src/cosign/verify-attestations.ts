/**
 * Cosign attestations (cosign's VerifyImageAttestations with the in-toto subject claim check): the
 * `.att` manifest's DSSE layers, each envelope signature verified like a signature (PAE); the
 * statement's subject must name this image's digest. Answers the verified statements whose
 * predicateType is the one asked for.
 */
import type { JsonObject } from '@edict/foundation';
import type { AttestationVerification, CosignVerifier, VerifyOptions } from '../model';
import type { OciReader } from '../ports';
import { checkSigner } from './check-signer';
import { ATTESTATION_TAG_SUFFIX, DSSE_MEDIA_TYPE, IN_TOTO_PAYLOAD_TYPE } from './constants';
import { evidenceFromAnnotations } from './evidence';
import { fetchCosignLayers, resolveImage, signatureRepo } from './fetch';
import { joinReasons } from './reasons';
import { DsseContent } from './signature-content';
import { checkKeylessSpec } from './spec';
import { buildTrust } from './trust';

/** An envelope carries a handful of signatures at most; more is not examined. */
const MAX_ENVELOPE_SIGNATURES = 8;
const COSIGN_CUSTOM_PREDICATE = 'https://cosign.sigstore.dev/attestation/v1';

/** cosign's predicate short names (`cosign attest --type`). */
const PREDICATE_ALIASES: Readonly<Record<string, string>> = {
  custom: COSIGN_CUSTOM_PREDICATE,
  slsaprovenance: 'https://slsa.dev/provenance/v0.2',
  slsaprovenance02: 'https://slsa.dev/provenance/v0.2',
  slsaprovenance1: 'https://slsa.dev/provenance/v1',
  spdx: 'https://spdx.dev/Document',
  spdxjson: 'https://spdx.dev/Document',
  cyclonedx: 'https://cyclonedx.org/bom',
  link: 'https://in-toto.io/Link/v1',
  vuln: 'https://cosign.sigstore.dev/attestation/vuln/v1',
  openvex: 'https://openvex.dev/ns',
};

export async function verifyCosignAttestations(
  oci: OciReader,
  image: string,
  predicateType: string,
  verifier: CosignVerifier,
  options: VerifyOptions,
): Promise<AttestationVerification> {
  checkKeylessSpec(verifier);
  const trust = await buildTrust(verifier, options);
  const { ref, digest } = await resolveImage(oci, image, options);
  const repo = signatureRepo(ref, verifier.signatureRepository);
  const layers = await fetchCosignLayers(oci, repo, digest, ATTESTATION_TAG_SUFFIX, options);
  if (!layers || layers.length === 0)
    return { verified: false, digest, reason: 'no attestations found', statements: [] };

  const wanted = Object.hasOwn(PREDICATE_ALIASES, predicateType) ? PREDICATE_ALIASES[predicateType] : predicateType;
  const now = (options.now ?? Date.now)();
  const reasons: string[] = [];
  const verified: JsonObject[] = [];
  for (const layer of layers) {
    try {
      if (layer.problem) throw new Error(layer.problem);
      if (layer.mediaType !== DSSE_MEDIA_TYPE)
        throw new Error(`layer media type ${layer.mediaType} is not a DSSE envelope`);
      const envelope = parseEnvelope(layer.payload);
      const evidence = evidenceFromAnnotations(layer.annotations);
      let lastError = 'envelope has no signatures';
      let ok = false;
      for (const sig of envelope.signatures.slice(0, MAX_ENVELOPE_SIGNATURES)) {
        try {
          const content = new DsseContent(
            layer.payload,
            envelope.payloadType,
            envelope.payload,
            sig,
            trust.hashAlgorithm,
          );
          checkSigner(content, evidence, trust, verifier, now);
          ok = true;
          break;
        } catch (error) {
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
      if (!ok) throw new Error(lastError);
      verified.push(checkStatement(envelope.payload, digest));
    } catch (error) {
      reasons.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (verified.length === 0)
    return { verified: false, digest, reason: joinReasons('no matching attestations', reasons), statements: [] };
  const statements = verified.filter((statement) => statement.predicateType === wanted).map(decodeCustomPredicate);
  if (statements.length === 0) {
    const found = [...new Set(verified.map((statement) => String(statement.predicateType)))];
    return {
      verified: false,
      digest,
      reason: `required predicate type ${predicateType} not found, found [${found.join(' ')}]`,
      statements: [],
    };
  }
  return { verified: true, digest, statements };
}

interface Envelope {
  payloadType: string;
  payload: Buffer;
  signatures: Buffer[];
}

function parseEnvelope(bytes: Buffer): Envelope {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new Error('attestation is not a JSON DSSE envelope');
  }
  if (typeof json?.payloadType !== 'string' || typeof json.payload !== 'string' || !Array.isArray(json.signatures))
    throw new Error('attestation is not a DSSE envelope (payloadType, payload, signatures)');
  if (json.payloadType !== IN_TOTO_PAYLOAD_TYPE) throw new Error(`unsupported payload type ${json.payloadType}`);
  const signatures = json.signatures
    .map((entry) => (entry && typeof entry === 'object' ? (entry as Record<string, unknown>).sig : undefined))
    .filter((sig): sig is string => typeof sig === 'string')
    .map((sig) => Buffer.from(sig, 'base64'));
  return { payloadType: json.payloadType, payload: Buffer.from(json.payload, 'base64'), signatures };
}

/** cosign's in-toto claim: a subject whose sha256 is this image's digest. */
function checkStatement(payload: Buffer, digest: string): JsonObject {
  let statement: JsonObject;
  try {
    statement = JSON.parse(payload.toString('utf8')) as JsonObject;
  } catch {
    throw new Error('in-toto statement is not JSON');
  }
  if (!statement || typeof statement !== 'object' || Array.isArray(statement))
    throw new Error('in-toto statement is not an object');
  const [algorithm, hex] = digest.split(':');
  const subjects = Array.isArray(statement.subject) ? (statement.subject as JsonObject[]) : [];
  const matches = subjects.some((subject) => (subject?.digest as JsonObject | undefined)?.[algorithm] === hex);
  if (!matches) throw new Error(`no subject of the in-toto statement matches the image digest ${digest}`);
  return statement;
}

/** cosign's custom predicate keeps its data as a string: read it as JSON when it is (as Kyverno). */
function decodeCustomPredicate(statement: JsonObject): JsonObject {
  if (statement.predicateType !== COSIGN_CUSTOM_PREDICATE) return statement;
  const predicate = statement.predicate as JsonObject | undefined;
  if (!predicate || typeof predicate.Data !== 'string') return statement;
  try {
    const data: unknown = JSON.parse(predicate.Data);
    if (data && typeof data === 'object' && !Array.isArray(data))
      return { ...statement, predicate: { ...predicate, Data: data as JsonObject } };
  } catch {
    // not JSON: kept as written
  }
  return statement;
}
