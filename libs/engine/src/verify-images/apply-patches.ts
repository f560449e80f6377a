import type { KubeObject } from '@edict/foundation';
import { applyJson6902 } from '../mutate/patch';
import type { JsonPatchOperation } from '../mutate/admission-patch';
import { VerifiedImages } from './annotation';

/** What verifyImages policies leave on the object together (Kyverno's imageVerificationHandler). */
export interface ImagePatchOutcome {
  /** The annotation patches first, then the digest patches, as Kyverno orders them. */
  readonly patches: JsonPatchOperation[];
  /** The object after them; the object itself when nothing changes. */
  readonly resource: KubeObject;
}

/**
 * Joins the policies' digest patches with the `kyverno.io/verify-images` annotation recording every
 * image any policy verified, and applies them to the object the policies saw. Throws when the
 * patches do not apply (an image pointer that no longer exists).
 */
export function applyImagePatches(
  resource: KubeObject,
  results: readonly { patches: readonly JsonPatchOperation[]; verifiedImages: VerifiedImages }[],
): ImagePatchOutcome {
  const verified = new VerifiedImages();
  const digestPatches: JsonPatchOperation[] = [];
  for (const result of results) {
    verified.merge(result.verifiedImages);
    digestPatches.push(...result.patches);
  }
  const patches = [...(verified.empty ? [] : verified.patches(resource)), ...digestPatches];
  if (patches.length === 0) return { patches, resource };
  const outcome = applyJson6902(resource as never, patches as never);
  if (outcome.status === 'error') throw new Error(`failed to apply image verification patches: ${outcome.message}`);
  return { patches, resource: outcome.status === 'pass' ? (outcome.resource as KubeObject) : resource };
}
