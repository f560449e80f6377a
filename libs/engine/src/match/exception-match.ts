import type { MatchResources, ResourceFilter } from '../policy/types';
import { filterFailures, isEmptyFilter, userInfoOf } from './resource-filter';
import { gvkOf, type MatchRequest } from './request';

/**
 * Whether a PolicyException's `match` selects the request. This differs from rule matching in
 * Kyverno: only `any`/`all` count (no legacy form, and neither means no match), user-info filters
 * are always checked (even when the request carries no user), an empty filter never matches, and a
 * `namespaceSelector` is skipped for Namespace objects instead of failing.
 */
export function matchesExceptionResources(match: MatchResources | undefined, request: MatchRequest): boolean {
  if (!match || !request.resource) return false;
  const gvk = request.requestKind ?? gvkOf(request.resource);
  const holds = (filter: ResourceFilter | undefined): boolean =>
    !!filter &&
    !isEmptyFilter(filter) &&
    filterFailures(filter.resources, userInfoOf(filter), request, gvk, 'exception').length === 0;
  if (match.any && match.any.length > 0) return match.any.some(holds);
  if (match.all && match.all.length > 0) return match.all.every(holds);
  return false;
}
