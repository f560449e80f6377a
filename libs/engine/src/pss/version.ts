import { PodSecurityError, VERSION_ERROR_PREFIX } from './errors';

/** A policy version: a Kubernetes 1.x minor, or `Infinity` for `latest`. */
export type PolicyMinor = number;

const VERSION_PATTERN = /^v1\.(0|[1-9][0-9]*)$/;

/** `latest` (or empty) selects the newest version of every check; otherwise `v1.<minor>`. */
export function parsePolicyVersion(version: string | undefined): PolicyMinor {
  if (version === undefined || version === '' || version === 'latest') return Infinity;
  const match = VERSION_PATTERN.exec(version);
  if (!match)
    throw new PodSecurityError(VERSION_ERROR_PREFIX, 'must be "latest" or "v1.x"', 'validate.podSecurity.version');
  return Number(match[1]);
}
