/**
 * spec.credentials as registry access, with Kyverno's rules for Secret references
 * (ParseSecretReference / ScopeSecretReferences): a reference is `name` or `namespace/name`. A
 * NamespacedImageValidatingPolicy's bare names are read in its own namespace, and a reference to any
 * other namespace is refused ("instead of policy namespace"): it never reaches outside it. An
 * ImageValidatingPolicy's bare names are read in the controller's namespace (no namespace given).
 */
import type { CompiledImageValidatingPolicy } from './compiled-policy';
import type { OciAccessRequest } from './ports';

/** A Secret reference Kyverno would refuse; the evaluation answers it as the policy's error. */
export class SecretReferenceError extends Error {
  override readonly name = 'SecretReferenceError';
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The registry access a policy asks for; throws SecretReferenceError for a reference Kyverno refuses. */
export function policyRegistryAccess(compiled: CompiledImageValidatingPolicy): OciAccessRequest {
  const credentials = compiled.credentials ?? {};
  const secrets = scopeSecretReferences(credentials.secrets ?? [], compiled.namespace);
  return {
    ...(secrets.length > 0 ? { secrets } : {}),
    ...(credentials.allowInsecureRegistry ? { allowInsecure: true } : {}),
    ...(credentials.providers && credentials.providers.length > 0 ? { providers: [...credentials.providers] } : {}),
    ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
  };
}

/**
 * The references as `namespace/name` for a namespaced policy (all in `namespace`), or as written
 * (bare: the controller's namespace) for a cluster one; each name a DNS-1123 subdomain.
 */
export function scopeSecretReferences(references: readonly string[], namespace: string | undefined): string[] {
  if (namespace !== undefined && !DNS1123_LABEL.test(namespace)) {
    throw new SecretReferenceError(`policy namespace ${JSON.stringify(namespace)} is invalid`);
  }
  return references.map((reference) => {
    const slash = reference.indexOf('/');
    const secretNamespace = slash < 0 ? namespace : reference.slice(0, slash) || namespace;
    const name = slash < 0 ? reference : reference.slice(slash + 1);
    if (name === '') throw new SecretReferenceError(`secret reference ${JSON.stringify(reference)} has an empty name`);
    if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
      throw new SecretReferenceError(`secret reference ${JSON.stringify(reference)} has an invalid name`);
    }
    if (namespace === undefined) {
      if (secretNamespace !== undefined && !DNS1123_LABEL.test(secretNamespace)) {
        throw new SecretReferenceError(`secret reference ${JSON.stringify(reference)} has an invalid namespace`);
      }
      return secretNamespace === undefined ? name : `${secretNamespace}/${name}`;
    }
    if (secretNamespace !== namespace) {
      throw new SecretReferenceError(
        `secret reference ${JSON.stringify(reference)} uses namespace ${JSON.stringify(secretNamespace)} instead of policy namespace ${JSON.stringify(namespace)}`,
      );
    }
    return `${namespace}/${name}`;
  });
}
