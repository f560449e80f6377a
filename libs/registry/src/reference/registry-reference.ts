/**
 * An image reference as Kyverno's registry client sees it (go-containerregistry's names): Docker
 * Hub is `index.docker.io` with `library/` before single-segment repositories, the identifier is
 * the digest when there is one, else the tag (`latest` by default). Parsing itself is the engine's.
 */
import { ImageReferenceError, parseImageReference } from '@edict/foundation';
import { RegistryError } from '../registry-errors';

export const DOCKER_HUB = 'index.docker.io';
/** Where Docker Hub serves the distribution API. */
export const DOCKER_HUB_API_HOST = 'registry-1.docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', DOCKER_HUB]);

export interface RegistryReference {
  /** The reference as given. */
  readonly image: string;
  /** The registry name Kyverno reports, e.g. `index.docker.io`, `ghcr.io`, `127.0.0.1:5000`. */
  readonly registry: string;
  /** Host (and port) serving the API. */
  readonly host: string;
  /** e.g. `library/nginx`. */
  readonly repository: string;
  /** The digest when the reference has one, else the tag. */
  readonly identifier: string;
  readonly digest?: string;
}

export function parseRegistryReference(image: string): RegistryReference {
  let info;
  try {
    info = parseImageReference(image, 'docker.io');
  } catch (error) {
    if (error instanceof ImageReferenceError) {
      throw new RegistryError(image, `invalid image reference: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const named = info.registry ?? 'docker.io';
  const dockerHub = DOCKER_HUB_ALIASES.has(named);
  const registry = dockerHub ? DOCKER_HUB : named;
  const repository = dockerHub && !info.path.includes('/') ? `library/${info.path}` : info.path;
  return {
    image,
    registry,
    host: dockerHub ? DOCKER_HUB_API_HOST : registry,
    repository,
    identifier: info.digest ?? info.tag ?? 'latest',
    ...(info.digest ? { digest: info.digest } : {}),
  };
}
