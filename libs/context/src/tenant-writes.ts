/**
 * What the controllers write on behalf of a namespaced policy (a Policy or CleanupPolicy): only
 * namespaced objects of the policy's own namespace, and never Kyverno's own kinds (policies, cluster
 * policies, exceptions, cleanup policies, global context entries, update requests, reports), even in
 * that namespace. The controllers act with cluster-wide rights (Kyverno's chart gives the
 * background controller write access to kyverno.io policies), so this is checked where they write,
 * with the kind's scope from discovery, after everything the policy computed. An unknown scope is
 * refused: the check fails closed.
 */

/** The policy a write is made for. */
export interface WritingPolicy {
  readonly kind: string;
  readonly name: string;
  /** Set for a namespaced policy; a cluster-wide one is not restricted here. */
  readonly namespace?: string;
}

/** The object about to be written. */
export interface WriteTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
}

export class TenantWriteRefused extends Error {
  override readonly name = 'TenantWriteRefused';
}

/** API groups of Kyverno's own kinds: policies of every flavour, exceptions, reports, requests. */
const KYVERNO_GROUPS = new Set(['kyverno.io', 'policies.kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io']);

/** Whether `apiVersion` is in one of Kyverno's groups (any `*.kyverno.io` too). */
export function isKyvernoKind(apiVersion: string): boolean {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return KYVERNO_GROUPS.has(group) || group.endsWith('.kyverno.io');
}

/**
 * Throws TenantWriteRefused when `policy` is namespaced and `target` is not a namespaced object of
 * its namespace, or is one of Kyverno's kinds. `namespaced` is the kind's scope from discovery
 * (undefined: not served or not known, refused).
 */
export function checkTenantWrite(
  policy: WritingPolicy,
  verb: string,
  target: WriteTarget,
  namespaced: boolean | undefined,
): void {
  const own = policy.namespace;
  if (!own) return;
  const problem = isKyvernoKind(target.apiVersion)
    ? `Kyverno's own kinds (${[...KYVERNO_GROUPS].join(', ')}) are written only for cluster-wide policies`
    : namespaced === undefined
      ? `the scope of ${target.kind} cannot be determined from discovery`
      : !namespaced
        ? `${target.kind} is cluster-scoped`
        : target.namespace !== own
          ? `the object is in ${target.namespace ? `namespace "${target.namespace}"` : 'no namespace'}`
          : undefined;
  if (problem === undefined) return;
  const object = `${target.apiVersion}/${target.kind} ${target.namespace ? `${target.namespace}/` : ''}${target.name ?? ''}`;
  throw new TenantWriteRefused(
    `${policy.kind} ${own}/${policy.name} may not ${verb} ${object}: a namespaced policy writes only namespaced objects of its own namespace "${own}" (${problem})`,
  );
}
