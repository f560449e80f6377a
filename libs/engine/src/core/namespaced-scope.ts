/**
 * What a namespaced Policy may reach at run time, once variables are substituted: namespaced kinds
 * in its own namespace only (Kyverno's generator checks the same before it reads a clone source or
 * writes). Admission-time validation cannot see a kind or namespace written as a variable, so these
 * checks run again with the values the rule actually produced.
 */
import { type KubeObject, hasWildcard } from '@edict/foundation';
import { DEFAULT_CLUSTER_SCOPED_KINDS } from '../policy-validation/kinds';
import type { ResourceLoader } from './loaders';

/** A namespaced Policy reaching outside its namespace; the rule ends in error and nothing is written. */
export class ScopeViolation extends Error {
  override readonly name = 'ScopeViolation';
}

/**
 * Whether a kind is namespaced: discovery through the loader first, the built-in cluster-scoped
 * kinds when the loader cannot tell (the CLI's loader knows only the kinds its test holds);
 * undefined when neither knows.
 */
export async function kindIsNamespaced(
  resources: ResourceLoader | undefined,
  apiVersion: string,
  kind: string,
): Promise<boolean | undefined> {
  const answer = resources ? await resources.namespaced(apiVersion, kind) : undefined;
  if (answer !== undefined) return answer;
  return DEFAULT_CLUSTER_SCOPED_KINDS.has(kind) ? false : undefined;
}

/**
 * Refuses a kind a namespaced Policy may not touch: a cluster-scoped one, a kind with wildcards or a
 * subresource, or an empty one. `what` names the field (`generate.kind`, `mutate.targets[0]`).
 */
export async function checkNamespacedKind(
  resources: ResourceLoader | undefined,
  policyNamespace: string,
  what: string,
  apiVersion: string,
  kind: string,
): Promise<void> {
  const type = apiVersion ? `${apiVersion}/${kind}` : kind;
  if (kind === '' || kind.includes('/') || hasWildcard(kind)) {
    throw new ScopeViolation(
      `${what}: a Policy in namespace "${policyNamespace}" needs a namespaced top-level kind, got "${type}"`,
    );
  }
  if ((await kindIsNamespaced(resources, apiVersion, kind)) === false) {
    throw new ScopeViolation(
      `${what}: a Policy in namespace "${policyNamespace}" may only reach namespaced kinds, and ${type} is cluster-scoped`,
    );
  }
}

/** Refuses a namespace other than the Policy's own (`what` names the field). */
export function checkOwnNamespace(policyNamespace: string, what: string, namespace: string | undefined): void {
  if (namespace === policyNamespace) return;
  throw new ScopeViolation(
    `${what}: a Policy in namespace "${policyNamespace}" may only reach its own namespace, not ${
      namespace ? `namespace "${namespace}"` : 'the cluster scope'
    }`,
  );
}

/** Refuses an object a namespaced Policy produced outside its namespace or of a cluster-scoped kind. */
export async function checkNamespacedObject(
  resources: ResourceLoader | undefined,
  policyNamespace: string,
  what: string,
  object: KubeObject,
): Promise<void> {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const name = object.metadata?.name ?? '';
  const at = `${what} ${apiVersion ? `${apiVersion}/` : ''}${kind} "${name}"`;
  await checkNamespacedKind(resources, policyNamespace, at, apiVersion, kind);
  checkOwnNamespace(policyNamespace, at, object.metadata?.namespace);
}
