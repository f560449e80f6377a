/**
 * Raised when a podSecurity rule cannot be evaluated: bad `version`, unsupported resource kind,
 * or a pod field of the wrong JSON type. `ruleMessage` is the text Kyverno puts in the rule's
 * `error` response (its fixed prefix, then the cause).
 */
export class PodSecurityError extends Error {
  constructor(
    readonly prefix: string,
    readonly detail: string,
    readonly path?: string,
  ) {
    super(`${prefix}: ${detail}`);
    this.name = 'PodSecurityError';
  }

  get ruleMessage(): string {
    return this.message;
  }
}

/** Kyverno's prefix when the pod cannot be read from the resource. */
export const RESOURCE_ERROR_PREFIX = 'Error while getting new resource';
/** Kyverno's prefix when `podSecurity.version` cannot be parsed. */
export const VERSION_ERROR_PREFIX = 'failed to parse pod security api version';
