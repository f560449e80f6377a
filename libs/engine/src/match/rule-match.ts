import type { GroupVersionKind } from '@edict/foundation';
import type { MatchResources, ResourceFilter, Rule, UserInfoFilter } from '../policy/types';
import { filterFailures, isZeroDescription, isZeroUserInfo, userInfoOf } from './resource-filter';
import { gvkOf, resourceNamespaceOf, type MatchRequest } from './request';
import { isUnknownUser } from './user-info';

const NO_USER_INFO: UserInfoFilter = {};

export interface RuleMatchResult {
  matched: boolean;
  /** Why the rule does not apply, in Kyverno's format (`rule <name> not matched:` + numbered reasons). */
  reason?: string;
}

/**
 * Whether a rule applies to the request: its `match` holds and its `exclude` does not. A namespaced
 * `Policy` (pass its namespace as `policyNamespace`) only applies to resources in that namespace, so
 * never to cluster-scoped ones. Exclude is only consulted once match has succeeded.
 */
export function ruleMatches(rule: Rule, request: MatchRequest, policyNamespace?: string): RuleMatchResult {
  if (!request.resource) return { matched: false, reason: 'resource is empty' };
  if (policyNamespace && policyNamespace !== resourceNamespaceOf(request.resource)) {
    return { matched: false, reason: 'policy and resource namespaces mismatch' };
  }
  const gvk = request.requestKind ?? gvkOf(request.resource);
  let reasons = matchFailures(rule.match, request, gvk);
  if (reasons.length === 0) reasons = excludeFailures(rule.exclude, request, gvk);
  if (reasons.length === 0) return { matched: true };
  const numbered = reasons.map((reason, i) => `\n ${i + 1}. ${reason}`).join('');
  return { matched: false, reason: `rule ${rule.name} not matched:${numbered}` };
}

/** Whether a `match` block (rule semantics) selects the request; exclude is not considered. */
export function matchesResources(match: MatchResources, request: MatchRequest, policyNamespace?: string): boolean {
  if (!request.resource) return false;
  if (policyNamespace && policyNamespace !== resourceNamespaceOf(request.resource)) return false;
  return matchFailures(match, request, request.requestKind ?? gvkOf(request.resource)).length === 0;
}

/** `any`: one filter must hold; otherwise `all`: every filter must hold; otherwise the legacy single filter. */
function matchFailures(match: MatchResources | undefined, request: MatchRequest, gvk: GroupVersionKind): string[] {
  const block = match ?? {};
  if (block.any && block.any.length > 0) {
    const oneHolds = block.any.some((filter) => matchFilterFailures(filter ?? {}, request, gvk).length === 0);
    return oneHolds ? [] : ['no resource matched'];
  }
  if (block.all && block.all.length > 0) {
    return block.all.flatMap((filter) => matchFilterFailures(filter ?? {}, request, gvk));
  }
  return matchFilterFailures(legacyFilter(block), request, gvk);
}

function matchFilterFailures(filter: ResourceFilter, request: MatchRequest, gvk: GroupVersionKind): string[] {
  // Without any user information (CLI without a user file, background scans) Kyverno ignores the
  // user-info half of match filters, so such rules still apply.
  const userInfo = isUnknownUser(request.user) ? NO_USER_INFO : userInfoOf(filter);
  if (isZeroDescription(filter.resources) && isZeroUserInfo(userInfo)) return ['match cannot be empty'];
  return filterFailures(filter.resources, userInfo, request, gvk, 'rule');
}

/** `any`: any filter that holds excludes; otherwise `all`: excluded only when every filter holds; otherwise legacy. */
function excludeFailures(exclude: MatchResources | undefined, request: MatchRequest, gvk: GroupVersionKind): string[] {
  if (!exclude) return [];
  if (exclude.any && exclude.any.length > 0) {
    return exclude.any.flatMap((filter) => excludeFilterFailures(filter ?? {}, request, gvk));
  }
  if (exclude.all && exclude.all.length > 0) {
    const excludedByAll = exclude.all.every((filter) => excludeFilterFailures(filter ?? {}, request, gvk).length > 0);
    return excludedByAll ? ['resource excluded since the combination of all criteria exclude it'] : [];
  }
  return excludeFilterFailures(legacyFilter(exclude), request, gvk);
}

/** A failure when the filter holds (the resource is excluded); an empty filter excludes nothing. */
function excludeFilterFailures(filter: ResourceFilter, request: MatchRequest, gvk: GroupVersionKind): string[] {
  const userInfo = userInfoOf(filter);
  if (isZeroDescription(filter.resources) && isZeroUserInfo(userInfo)) return [];
  const failures = filterFailures(filter.resources, userInfo, request, gvk, 'rule');
  return failures.length === 0 ? ['resource excluded since one of the criteria excluded it'] : [];
}

function legacyFilter(block: MatchResources): ResourceFilter {
  return { resources: block.resources, roles: block.roles, clusterRoles: block.clusterRoles, subjects: block.subjects };
}
