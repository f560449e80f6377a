/**
 * Cosign image signatures (cosign's VerifyImageSignatures with the simple-signing claim check): the
 * `.sig` manifest's simple-signing layers (or, with `oci11`, those of the signature referrer first),
 * each verified on its own; verified when at least one
 * passes the policy's trust and its payload names this image's digest (and the annotations).
 */
import type { JsonObject } from '@edict/foundation';
import type { CosignVerifier, SignatureVerification, VerifiedSignature, VerifyOptions } from '../model';
import type { OciReader } from '../ports';
import { checkSigner } from './check-signer';
import {
  ANNOTATION_SIGNATURE,
  SIGNATURE_TAG_SUFFIX,
  SIMPLE_SIGNING_MEDIA_TYPE,
  SIMPLE_SIGNING_TYPE,
} from './constants';
import { evidenceFromAnnotations } from './evidence';
import {
  fetchCosignLayers,
  fetchReferrerSignatureLayers,
  resolveImage,
  signatureRepo,
  type CosignLayer,
} from './fetch';
import { joinReasons } from './reasons';
import { SimpleSigningContent } from './signature-content';
import { checkKeylessSpec } from './spec';
import { buildTrust, type CosignTrust } from './trust';

export async function verifyCosignSignatures(
  oci: OciReader,
  image: string,
  verifier: CosignVerifier,
  options: VerifyOptions,
): Promise<SignatureVerification> {
  // Trust material first: a bad policy is an error whatever the registry holds.
  checkKeylessSpec(verifier);
  const trust = buildTrust(verifier);
  const { ref, digest } = await resolveImage(oci, image, options);
  const repo = signatureRepo(ref, verifier.signatureRepository);
  const check = (layers: CosignLayer[]): { signatures: VerifiedSignature[]; reasons: string[] } =>
    checkLayers(layers, digest, trust, verifier, (options.now ?? Date.now)());

  // cosign's OCI 1.1 layout first when asked (Kyverno's cosignOCI11); anything short of a verified
  // signature there falls back to the `.sig` tag, as cosign's VerifyImageSignatures does.
  const referrerReasons: string[] = [];
  if (verifier.oci11) {
    try {
      const layers = await fetchReferrerSignatureLayers(oci, repo, digest, options);
      if (layers && layers.length > 0) {
        const { signatures, reasons } = check(layers);
        if (signatures.length > 0) return { verified: true, digest, signatures };
        referrerReasons.push(...reasons.map((reason) => `OCI 1.1 referrer: ${reason}`));
      }
    } catch (error) {
      // Out of time is out of time on either layout.
      if (options.deadline !== undefined && (options.now ?? Date.now)() > options.deadline) throw error;
      referrerReasons.push(`OCI 1.1 referrers: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const layers = await fetchCosignLayers(oci, repo, digest, SIGNATURE_TAG_SUFFIX, options);
  if (!layers || layers.length === 0) {
    const reason =
      referrerReasons.length > 0 ? joinReasons('no matching signatures', referrerReasons) : 'no signatures found';
    return { verified: false, digest, reason, signatures: [] };
  }
  const { signatures, reasons } = check(layers);
  if (signatures.length === 0)
    return {
      verified: false,
      digest,
      reason: joinReasons('no matching signatures', [...referrerReasons, ...reasons]),
      signatures: [],
    };
  return { verified: true, digest, signatures };
}

/** Each simple-signing layer verified on its own: the ones that pass, and why the others did not. */
function checkLayers(
  layers: CosignLayer[],
  digest: string,
  trust: CosignTrust,
  verifier: CosignVerifier,
  now: number,
): { signatures: VerifiedSignature[]; reasons: string[] } {
  const reasons: string[] = [];
  const signatures: VerifiedSignature[] = [];
  for (const layer of layers) {
    try {
      if (layer.problem) throw new Error(layer.problem);
      if (layer.mediaType !== SIMPLE_SIGNING_MEDIA_TYPE)
        throw new Error(`layer media type ${layer.mediaType} is not simple signing`);
      const signature = layer.annotations[ANNOTATION_SIGNATURE];
      if (!signature) throw new Error('layer has no signature annotation');
      const content = new SimpleSigningContent(Buffer.from(signature, 'base64'), layer.payload, trust.hashAlgorithm);
      const signer = checkSigner(content, evidenceFromAnnotations(layer.annotations), trust, verifier, now);
      const payload = checkSimpleSigning(layer.payload, digest, verifier.annotations ?? {});
      signatures.push({ ...signer, payload });
    } catch (error) {
      reasons.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { signatures, reasons };
}

/** The simple-signing claims: cosign's type, this image's digest, the policy's annotations. */
function checkSimpleSigning(payload: Buffer, digest: string, annotations: Record<string, string>): JsonObject {
  let json: JsonObject;
  try {
    json = JSON.parse(payload.toString('utf8')) as JsonObject;
  } catch {
    throw new Error('payload is not JSON');
  }
  const critical = json?.critical as JsonObject | undefined;
  if (!critical || typeof critical !== 'object') throw new Error('payload has no critical section');
  if (critical.type !== SIMPLE_SIGNING_TYPE) throw new Error(`unknown payload type ${String(critical.type)}`);
  const signed = (critical.image as JsonObject | undefined)?.['docker-manifest-digest'];
  if (signed !== digest) throw new Error(`invalid or missing digest in claim: ${String(signed)}`);
  const optional = (json.optional ?? {}) as JsonObject;
  for (const [key, value] of Object.entries(annotations)) {
    if (optional?.[key] !== value) throw new Error(`annotation value for ${key} does not match`);
  }
  return json;
}
