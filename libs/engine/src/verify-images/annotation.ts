import type { KubeObject } from '@edict/foundation';
import type { JsonPatchOperation } from '../mutate/admission-patch';
import type { RuleStatus } from '../core/types';

/** The annotation in which Kyverno records which images it verified: `{"<image>":"pass"|"fail"|"skip"}`. */
export const IMAGE_VERIFY_ANNOTATION = 'kyverno.io/verify-images';

export type ImageVerificationStatus = 'pass' | 'fail' | 'skip';

/** Kyverno's ImageVerificationMetadata: images of one request and their verification outcome. */
export class VerifiedImages {
  readonly data = new Map<string, ImageVerificationStatus>();

  add(image: string, status: ImageVerificationStatus): void {
    this.data.set(image, status);
  }

  merge(other: VerifiedImages): void {
    for (const [image, status] of other.data) this.data.set(image, status);
  }

  get empty(): boolean {
    return this.data.size === 0;
  }

  /** The annotation's value: a JSON object with the images in sorted order, as Go's json.Marshal writes a map. */
  value(): string {
    const sorted = [...this.data.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return JSON.stringify(Object.fromEntries(sorted));
  }

  /**
   * Kyverno's annotation patches: `/metadata/annotations` created first when the object has none,
   * then the annotation added (replacing whatever the request carried under that key).
   */
  patches(resource: KubeObject | undefined): JsonPatchOperation[] {
    const annotations = resource?.metadata?.annotations;
    const patches: JsonPatchOperation[] = [];
    if (!annotations || Object.keys(annotations).length === 0) {
      patches.push({ op: 'add', path: '/metadata/annotations', value: {} });
    }
    patches.push({
      op: 'add',
      path: `/metadata/annotations/${IMAGE_VERIFY_ANNOTATION.replace('/', '~1')}`,
      value: this.value(),
    });
    return patches;
  }
}

/** How a rule's status is recorded for an image (Kyverno's ruleStatusToImageVerificationStatus). */
export function imageStatusOf(status: RuleStatus): ImageVerificationStatus {
  if (status === 'pass') return 'pass';
  if (status === 'skip' || status === 'warn') return 'skip';
  return 'fail';
}

/** The recorded statuses of a resource's annotation; undefined when absent, an Error when it is not Kyverno's JSON. */
export function readVerifiedImages(resource: KubeObject | undefined): Map<string, string> | undefined | Error {
  const raw = resource?.metadata?.annotations?.[IMAGE_VERIFY_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return new Error(
        `failed to parse image metadata: the ${IMAGE_VERIFY_ANNOTATION} annotation is not a JSON object`,
      );
    }
    const statuses = new Map<string, string>();
    for (const [image, status] of Object.entries(parsed as Record<string, unknown>)) {
      // Kyverno < 1.12 wrote booleans; they read as pass/fail.
      statuses.set(image, status === true ? 'pass' : status === false ? 'fail' : String(status));
    }
    return statuses;
  } catch (error) {
    return new Error(`failed to parse image metadata: ${(error as Error).message}`);
  }
}

/**
 * Kyverno's HasImageVerifiedAnnotationChanged (UPDATE only): the request changed the recorded
 * status of an image that the old object already recorded, or made the annotation unreadable.
 * Such a request fails every image of the rule: only Edict writes the annotation.
 */
export function verifiedAnnotationChanged(resource: KubeObject | undefined, old: KubeObject | undefined): boolean {
  if (!resource || !old) return false;
  const newValue = resource.metadata?.annotations?.[IMAGE_VERIFY_ANNOTATION];
  const oldValue = old.metadata?.annotations?.[IMAGE_VERIFY_ANNOTATION];
  if (newValue === oldValue) return false;
  const now = readVerifiedImages(resource);
  const before = readVerifiedImages(old);
  if (now instanceof Error || before instanceof Error) return true;
  // One side without the annotation: Kyverno fails to read it and counts that as a change.
  if (!now || !before) return true;
  for (const [image, status] of before) {
    if (now.has(image) && now.get(image) !== status) return true;
  }
  return false;
}
