/** Name rules and generation: kube's DNS-1123 checks (with its message texts) and generateName suffixes. */
import { randomInt } from 'node:crypto';
import type { StatusCause } from '../status';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Types whose names must be DNS labels (no dots) rather than subdomains. */
const LABEL_NAMED = new Set(['/namespaces', '/services']);
/** Built-in types whose names need only be path segments, as kube's RBAC validation allows (`kyverno:rbac`). */
const PATH_SEGMENT_NAMED = new Set(
  ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].map(
    (resource) => `rbac.authorization.k8s.io/${resource}`,
  ),
);

export function validateName(groupResource: string, builtin: boolean, name: string): StatusCause | undefined {
  if (LABEL_NAMED.has(groupResource)) {
    if (name.length <= 63 && DNS1123_LABEL.test(name)) return undefined;
    return {
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message:
        name.length > 63
          ? `Invalid value: ${JSON.stringify(name)}: must be no more than 63 characters`
          : `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    };
  }
  if (name.includes('/') || name.includes('%') || name === '.' || name === '..') {
    return {
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(name)}: may not contain '/'`,
    };
  }
  if (builtin && !PATH_SEGMENT_NAMED.has(groupResource)) {
    // Built-in types check DNS subdomains; custom resources and RBAC types only reject path segments.
    if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
      return {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      };
    }
  }
  return undefined;
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` plus five random characters, as kube's name generator does. */
export function generatedName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return `${prefix.length > 58 ? prefix.slice(0, 58) : prefix}${suffix}`;
}
