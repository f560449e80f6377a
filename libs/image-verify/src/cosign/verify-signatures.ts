/**
 * Cosign image signatures (cosign's VerifyImageSignatures with the simple-signing claim check): the
 * `.sig` manifest's simple-signing layers, each verified on its own; verified when at least one
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
import { fetchCosignLayers, resolveImage, signatureRepo } from './fetch';
import { joinReasons } from './reasons';
import { SimpleSigningContent } from './signature-content';
import { checkKeylessSpec } from './spec';
import { buildTrust } from './trust';

export async function verifyCosignSignatures(
  oci: OciReader,
  image: string,
  verifier: CosignVerifier,
  options: VerifyOptions,
): Promise<SignatureVerification> {
  // Trust material first: a bad policy is an error whatever the registry holds.
  checkKeylessSpec(verifier);
  const trust = await buildTrust(verifier, options);
  const { ref, digest } = await resolveImage(oci, image, options);
  const repo = signatureRepo(ref, verifier.signatureRepository);
  const layers = await fetchCosignLayers(oci, repo, digest, SIGNATURE_TAG_SUFFIX, options);
  if (!layers || layers.length === 0) return { verified: false, digest, reason: 'no signatures found', signatures: [] };

  const now = (options.now ?? Date.now)();
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
  if (signatures.length === 0)
    return { verified: false, digest, reason: joinReasons('no matching signatures', reasons), signatures: [] };
  return { verified: true, digest, signatures };
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
