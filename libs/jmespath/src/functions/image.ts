/**
 * Kyverno's image normalisation (`GetImageInfo(...).String()`): add the default registry when the
 * first path component is not a host, parse with the distribution/reference grammar, default the
 * tag to "latest" and prefix single-component paths with "library/". The grammar and the
 * default-registry rule are the images module's; the error texts and the `library/` prefix are
 * this function's own.
 */
import { DOMAIN_AND_PORT, REFERENCE, withDefaultRegistry } from '@edict/foundation';

export interface ImageNormalizeConfig {
  readonly defaultRegistry: string;
  readonly enableDefaultRegistryMutation: boolean;
}

export const defaultImageConfig: ImageNormalizeConfig = {
  defaultRegistry: 'docker.io',
  enableDefaultRegistryMutation: true,
};

const ANCHORED_DOMAIN = new RegExp(`^(${DOMAIN_AND_PORT})/`);

/** Returns the normalised reference, or throws Error with Kyverno's "bad image" message. */
export function normalizeImage(image: string, config: ImageNormalizeConfig = defaultImageConfig): string {
  const full = withDefaultRegistry(image, config.defaultRegistry);
  const bad = (reason: string) =>
    new Error(
      `bad image: ${full}, defaultRegistry: ${config.defaultRegistry}, enableDefaultRegistryMutation: ${config.enableDefaultRegistryMutation}: ${reason}`,
    );
  const match = REFERENCE.exec(full);
  if (!match) {
    const upper = /^[^:@]*[A-Z]/.test(full.replace(ANCHORED_DOMAIN, ''));
    throw bad(
      upper
        ? `invalid reference format: repository name (${full.replace(ANCHORED_DOMAIN, '').split(/[:@]/)[0]}) must be lowercase`
        : 'invalid reference format',
    );
  }
  const [, name = '', tag, digest] = match;
  if (name.length > 255) throw bad('invalid reference format: repository name must not be more than 255 characters');
  if (digest?.startsWith('sha256:') && digest.length !== 'sha256:'.length + 64)
    throw bad('invalid checksum digest length');
  const domainMatch = ANCHORED_DOMAIN.exec(name);
  let registry = domainMatch ? domainMatch[1]! : '';
  let path = domainMatch ? name.slice(domainMatch[0].length) : name;
  if (full !== image && !config.enableDefaultRegistryMutation) registry = '';
  if (!path.includes('/')) path = `library/${path}`;
  const base = registry ? `${registry}/${path}` : path;
  return digest ? `${base}@${digest}` : `${base}:${tag ?? 'latest'}`;
}
