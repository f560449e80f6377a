import { type GroupVersionKind, wildcardMatch, checkSelector, kindMatches } from '@edict/foundation';
import type { ResourceDescription, ResourceFilter, UserInfoFilter } from '../policy/types';
import { resourceKindOf, resourceNameOf, resourceNamespaceOf, stringMapAt, type MatchRequest } from './request';
import { userInfoFailures } from './user-info';

/**
 * How `namespaceSelector` treats Namespace objects: rules never match a Namespace through a
 * namespace selector; PolicyExceptions skip the check for them.
 */
export type NamespaceSelectorMode = 'rule' | 'exception';

/**
 * Kyverno's check of one resource filter against the request: every attribute that is set must
 * hold (lists are OR inside). Returns the failures in Kyverno's words, empty when the filter holds.
 */
export function filterFailures(
  description: ResourceDescription | undefined,
  userInfo: UserInfoFilter,
  request: MatchRequest,
  gvk: GroupVersionKind,
  mode: NamespaceSelectorMode,
): string[] {
  const rd = description ?? {};
  // An operation mismatch is decisive on its own: Kyverno reports only that.
  if (rd.operations && rd.operations.length > 0 && !rd.operations.includes(request.operation)) {
    return ['operation does not match'];
  }

  const failures: string[] = [];
  const { resource } = request;
  if (rd.kinds && rd.kinds.length > 0 && !kindMatches(rd.kinds, gvk, request.subresource ?? '', true)) {
    failures.push(`kind does not match [${rd.kinds.join(' ')}]`);
  }

  const name = resourceNameOf(resource);
  if (rd.name && !wildcardMatch(rd.name, name)) failures.push('name does not match');
  if (rd.names && rd.names.length > 0 && !rd.names.some((pattern) => wildcardMatch(pattern, name))) {
    failures.push('none of the names match');
  }

  if (rd.namespaces && rd.namespaces.length > 0 && !namespaceMatches(rd.namespaces, request)) {
    failures.push('namespace does not match');
  }

  if (
    rd.annotations &&
    Object.keys(rd.annotations).length > 0 &&
    !annotationsMatch(rd.annotations, stringMapAt(resource, 'annotations'))
  ) {
    failures.push('annotations does not match');
  }

  if (rd.selector !== undefined && rd.selector !== null) {
    const result = checkSelector(rd.selector, stringMapAt(resource, 'labels'));
    if (result.error !== undefined) failures.push(`failed to parse selector: ${result.error}`);
    else if (!result.matched) failures.push('selector does not match');
  }

  if (rd.namespaceSelector !== undefined && rd.namespaceSelector !== null) {
    const failure = namespaceSelectorFailure(rd, request, mode);
    if (failure) failures.push(failure);
  }

  return failures.concat(userInfoFailures(userInfo, request.user));
}

function namespaceSelectorFailure(
  rd: ResourceDescription,
  request: MatchRequest,
  mode: NamespaceSelectorMode,
): string | undefined {
  const kind = resourceKindOf(request.resource);
  if (kind === 'Namespace') {
    return mode === 'rule' ? 'namespace selector is not applicable for namespace resource' : undefined;
  }
  const applies = mode === 'rule' ? kind !== '' || (rd.kinds ?? []).includes('*') : kind !== '';
  if (!applies) return undefined;
  const result = checkSelector(rd.namespaceSelector!, request.namespaceLabels);
  if (result.error !== undefined) return `failed to parse namespace selector: ${result.error}`;
  return result.matched ? undefined : 'namespace selector does not match labels';
}

/** A Namespace object is matched by its own name; anything else by its namespace (empty when cluster-scoped). */
export function namespaceMatches(patterns: readonly string[], request: MatchRequest): boolean {
  const namespace = matchedNamespace(request);
  return patterns.some((pattern) => wildcardMatch(pattern, namespace));
}

/** The name `namespaces` patterns are matched against (see `namespaceMatches`). */
export function matchedNamespace(request: MatchRequest): string {
  return resourceKindOf(request.resource) === 'Namespace'
    ? resourceNameOf(request.resource)
    : resourceNamespaceOf(request.resource);
}

/** Every expected entry must be matched (key and value wildcards) by some annotation of the resource. */
function annotationsMatch(expected: Record<string, string>, actual: Record<string, string> | undefined): boolean {
  const entries = Object.entries(actual ?? {});
  return Object.entries(expected).every(([keyPattern, valuePattern]) =>
    entries.some(([key, value]) => wildcardMatch(keyPattern, key) && wildcardMatch(valuePattern, String(value))),
  );
}

const DESCRIPTION_FIELDS = [
  'kinds',
  'name',
  'names',
  'namespaces',
  'annotations',
  'selector',
  'namespaceSelector',
  'operations',
] as const;
const USER_INFO_FIELDS = ['roles', 'clusterRoles', 'subjects'] as const;

/**
 * Go's "equal to the zero value" for a resource description: strings are unset when empty, lists,
 * maps and selectors only when absent. (`kinds: []` is therefore *not* zero, as in Kyverno.)
 */
export function isZeroDescription(rd: ResourceDescription | undefined): boolean {
  if (rd === undefined || rd === null) return true;
  return DESCRIPTION_FIELDS.every((field) => {
    const value = rd[field];
    return value === undefined || value === null || value === '';
  });
}

export function isZeroUserInfo(info: UserInfoFilter): boolean {
  return USER_INFO_FIELDS.every((field) => info[field] === undefined || info[field] === null);
}

/** Kyverno's `IsEmpty` on a filter (used for exceptions): every list empty, every string empty, no selector. */
export function isEmptyFilter(filter: ResourceFilter): boolean {
  const rd = filter.resources ?? {};
  const emptyDescription = DESCRIPTION_FIELDS.every((field) => {
    const value = rd[field];
    if (value === undefined || value === null || value === '') return true;
    if (Array.isArray(value)) return value.length === 0;
    if (field === 'annotations') return Object.keys(value).length === 0;
    return false;
  });
  const emptyUser = USER_INFO_FIELDS.every((field) => (filter[field] ?? []).length === 0);
  return emptyDescription && emptyUser;
}

/** The user-info half of a filter (so callers can drop it without copying the resource half). */
export function userInfoOf(filter: UserInfoFilter): UserInfoFilter {
  return { roles: filter.roles, clusterRoles: filter.clusterRoles, subjects: filter.subjects };
}
