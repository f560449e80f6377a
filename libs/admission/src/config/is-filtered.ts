import { type ResourceRequest } from '@edict/engine';
import { wildcardMatch } from '@edict/foundation';
import { admissionRequestOf } from '../request/to-resource-request';
import { matchesResourceFilters } from './resource-filters';
import type { AdmissionConfig, SubjectPatterns } from './types';

/** Report kinds and UpdateRequests: Kyverno never runs policies on its own bookkeeping objects. */
const OWN_KINDS = new Set([
  'ClusterPolicyReport',
  'PolicyReport',
  'AdmissionReport',
  'ClusterAdmissionReport',
  'BackgroundScanReport',
  'ClusterBackgroundScanReport',
  'EphemeralReport',
  'ClusterEphemeralReport',
  'UpdateRequest',
]);

/**
 * Why the request skips policies entirely (answered "allowed" at once), or undefined when it does
 * not: excluded users/groups/roles (unless re-included with `!`), excluded namespaces, the
 * `resourceFilters`, then Kyverno's own report and UpdateRequest kinds — in Kyverno's order.
 */
export function isFiltered(request: ResourceRequest, config: AdmissionConfig): string | undefined {
  const admission = admissionRequestOf(request);
  const info = request.user?.userInfo ?? admission?.userInfo ?? {};
  const subject = {
    username: info.username ?? '',
    groups: info.groups ?? [],
    roles: request.user?.roles ?? [],
    clusterRoles: request.user?.clusterRoles ?? [],
  };
  if (!matchesSubject(config.inclusions, subject) && matchesSubject(config.exclusions, subject))
    return 'excluded user, group or role';

  const object = request.resource ?? request.oldResource;
  const kind = admission?.kind ?? groupVersionKindOf(object?.apiVersion, object?.kind);
  const namespace = admission?.namespace ?? object?.metadata?.namespace ?? '';
  const name = admission?.name ?? object?.metadata?.name ?? '';
  const isNamespace = kind.group === '' && kind.kind === 'Namespace';
  const excluded = (pattern: string) =>
    wildcardMatch(pattern, namespace) || (isNamespace && wildcardMatch(pattern, name));
  if (config.excludedNamespaces.some(excluded)) return `namespace ${isNamespace ? name : namespace} is excluded`;

  const subresource = admission?.subResource ?? request.subresource ?? '';
  if (matchesResourceFilters(config.resourceFilters, kind, subresource, namespace, name))
    return 'matched a resourceFilters entry';
  if (OWN_KINDS.has(kind.kind)) return `${kind.kind} is a Kyverno bookkeeping kind`;
  return undefined;
}

interface Subject {
  username: string;
  groups: readonly string[];
  roles: readonly string[];
  clusterRoles: readonly string[];
}

/** Kyverno's exclusion match: any username, group, role or cluster role pattern hit. */
function matchesSubject(patterns: SubjectPatterns, subject: Subject): boolean {
  if (patterns.usernames.some((pattern) => wildcardMatch(pattern, subject.username))) return true;
  const any = (list: readonly string[], candidates: readonly string[]) =>
    list.some((pattern) => candidates.some((candidate) => wildcardMatch(pattern, candidate)));
  return (
    any(patterns.groups, subject.groups) ||
    any(patterns.roles, subject.roles) ||
    any(patterns.clusterRoles, subject.clusterRoles)
  );
}

function groupVersionKindOf(apiVersion: string | undefined, kind: string | undefined) {
  const value = apiVersion ?? '';
  const slash = value.indexOf('/');
  return slash < 0
    ? { group: '', version: value, kind: kind ?? '' }
    : { group: value.slice(0, slash), version: value.slice(slash + 1), kind: kind ?? '' };
}
