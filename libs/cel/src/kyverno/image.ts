import type { Environment } from '@marcbachmann/cel-js';
import { celError } from '../libraries/errors';
import { errorMessage } from '@edict/foundation';
import { parseReference, type ImageReference } from './image-reference';

export const IMAGE_TYPE = 'kyverno.image.Image';

/** A parsed image reference, the value of `image(ref)` / `parseImageReference(ref)`. */
export class CelImage {
  constructor(readonly reference: ImageReference) {}
}

/**
 * Kyverno's image library: `parseImageReference(ref)` and its older name `image(ref)`, `isImage(ref)`,
 * and on an image `registry()`, `repository()`, `identifier()`, `tag()`, `digest()`,
 * `containsDigest()`.
 */
export function registerImage(env: Environment): void {
  env.registerType(IMAGE_TYPE, CelImage);
  for (const name of ['image', 'parseImageReference']) {
    env.registerFunction(`${name}(string): ${IMAGE_TYPE}`, (text: string) => {
      try {
        return new CelImage(parseReference(text));
      } catch (error) {
        throw celError(errorMessage(error));
      }
    });
  }
  env.registerFunction('isImage(string): bool', (text: string) => {
    try {
      parseReference(text);
      return true;
    } catch {
      return false;
    }
  });
  const member = (name: string, result: string, handler: (reference: ImageReference) => unknown): void => {
    env.registerFunction(`${IMAGE_TYPE}.${name}(): ${result}`, (image: CelImage) => handler(image.reference));
  };
  member('containsDigest', 'bool', (r) => r.digest !== '');
  member('registry', 'string', (r) => r.registry);
  member('repository', 'string', (r) => r.repository);
  member('tag', 'string', (r) => r.tag);
  member('digest', 'string', (r) => r.digest);
  member('identifier', 'string', (r) => (r.digest ? (r.tag ? `${r.tag}@${r.digest}` : r.digest) : r.tag));
}
