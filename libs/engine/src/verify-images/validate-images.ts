import { wildcardMatch } from '@edict/foundation';
import { ruleError, ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import type { ContainerImageInfo, ImageInfos } from '../images';
import type { RuleRun } from '../validate/rule-run';
import { readVerifiedImages } from './annotation';
import { matchingImages, verifications } from './verify-rule';

/**
 * Kyverno's validate-image handler (the validating webhook's side of a verifyImages rule with
 * `verifyDigest` or `required`): every image of the request that an entry names must carry a digest
 * when `verifyDigest` asks, and be recorded as verified in the `kyverno.io/verify-images`
 * annotation (which the mutating side writes, and whose change on UPDATE it refuses) when
 * `required` asks. Reported as Kyverno reports it, under the ImageVerify type.
 */
export function validateImages(run: RuleRun): RuleResponse | undefined {
  const { rule, request } = run;
  if (request.operation === 'DELETE') return undefined;
  let matched: ContainerImageInfo[];
  try {
    matched = matchingImages(run);
  } catch (error) {
    return ruleError(rule, 'Validation', 'failed to instantiate handler', error);
  }
  if (matched.length === 0) return undefined;
  const skipped: string[] = [];
  const passed: string[] = [];
  const failures: string[] = [];
  for (const verification of verifications(rule)) {
    for (const group of Object.values(requestImages(run))) {
      for (const info of Object.values(group)) {
        const image = info.reference;
        if (!verification.imageReferences.some((pattern) => wildcardMatch(pattern, image))) continue;
        if (verification.verifyDigest && !info.digest) {
          failures.push(`missing digest for ${image}`);
          continue;
        }
        if (!verification.required || !request.resource) continue;
        const status = recordedStatus(run, image);
        if (status instanceof Error) failures.push(status.message);
        else if (status === 'skip') skipped.push(image);
        else if (status === 'pass') passed.push(image);
        else failures.push(`unverified image ${image}`);
      }
    }
  }
  if (failures.length > 0) return ruleResponse(rule, 'ImageVerify', 'fail', [...new Set(failures)].join('; '));
  if (passed.length > 0 || skipped.length === 0) {
    const message = skipped.length > 0 ? ['image verified, skipped images:', ...skipped].join(' ') : 'image verified';
    return ruleResponse(rule, 'ImageVerify', 'pass', message);
  }
  return ruleResponse(rule, 'ImageVerify', 'skip', ['image skipped, skipped images:', ...skipped].join(' '));
}

/** The image's recorded status; an Error when the object has annotations but not Kyverno's (or unreadable ones). */
function recordedStatus(run: RuleRun, image: string): string | Error {
  const resource = run.request.resource;
  const annotations = resource?.metadata?.annotations;
  if (!annotations || Object.keys(annotations).length === 0) return 'fail';
  const recorded = readVerifiedImages(resource);
  if (recorded === undefined) return new Error('image is not verified');
  if (recorded instanceof Error) return recorded;
  return recorded.get(image) ?? 'fail';
}

/** The request's images as the context holds them (Kyverno's validate side reads those, not the extractors'). */
function requestImages(run: RuleRun): ImageInfos {
  try {
    const images = run.ctx.query('images');
    return (images && typeof images === 'object' && !Array.isArray(images) ? images : {}) as unknown as ImageInfos;
  } catch {
    return {};
  }
}
