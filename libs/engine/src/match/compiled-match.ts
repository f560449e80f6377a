import {
  type GroupVersionKind,
  compileWildcard,
  hasWildcard,
  checkSelector,
  compileKindSelector,
  parseKind,
} from '@edict/foundation';
import type { MatchResources, ResourceFilter, Rule } from '../policy/types';
import { gvkOf, resourceNameOf, resourceNamespaceOf, stringMapAt, type MatchRequest } from './request';
import { isEmptyFilter, isZeroDescription, matchedNamespace } from './resource-filter';

/** Whether a rule applies to a request: `ruleMatches(...).matched`, decided without reasons. */
export type RuleMatcher = (request: MatchRequest, policyNamespace?: string) => boolean;

/** A filter's resource checks prepared once; `zero` filters have nothing to check. */
interface FilterCheck {
  readonly zero: boolean;
  holds(request: MatchRequest, gvk: GroupVersionKind): boolean;
  /** The part of `holds` that reads the request's kind and subresource only. */
  kindHolds(gvk: GroupVersionKind, subresource: string): boolean;
  /** Set when the filter names namespaces without wildcards: it holds only in those. */
  readonly namespaces?: ReadonlySet<string>;
}

/**
 * What a compiled matcher needs of the request's kind alone: when it says no, the matcher says no
 * too, whatever else the request holds, so a rule list can be narrowed once per kind.
 */
export type KindGate = (gvk: GroupVersionKind, subresource: string) => boolean;

/** The resource-description fields a prepared filter checks; any other set field leaves the rule to `ruleMatches`. */
const PREPARED_FIELDS = new Set(['kinds', 'name', 'names', 'namespaces', 'operations', 'selector']);

/**
 * `ruleMatches` for rules whose filters only name kinds, names, namespaces, operations and label
 * selectors (the common case): the kind entries are parsed once and the block logic is fixed.
 * Returns undefined for any other rule (user info, annotations, namespace selectors), which the
 * interpreter then matches.
 */
export function compileRuleMatch(rule: Rule): RuleMatcher | undefined {
  const match = compileBlock(rule.match);
  const exclude = rule.exclude ? compileBlock(rule.exclude) : undefined;
  if (!match || (rule.exclude && !exclude)) return undefined;
  return (request, policyNamespace) => {
    const resource = request.resource;
    if (!resource) return false;
    if (policyNamespace && policyNamespace !== resourceNamespaceOf(resource)) return false;
    const gvk = request.requestKind ?? gvkOf(resource);
    if (!blockHolds(match, request, gvk)) return false;
    return !exclude || !blockHolds(exclude, request, gvk);
  };
}

/** The kind gate of a rule `compileRuleMatch` compiles; undefined for the others. */
export function compileKindGate(rule: Rule): KindGate | undefined {
  const match = compileBlock(rule.match);
  if (!match || (rule.exclude && !compileBlock(rule.exclude))) return undefined;
  // `blockHolds` needs every filter to hold (`all`) or one (`any`), and a zero filter never holds.
  const filters = match.filters;
  if (match.every) return (gvk, subresource) => filters.every((f) => !f.zero && f.kindHolds(gvk, subresource));
  return (gvk, subresource) => filters.some((f) => !f.zero && f.kindHolds(gvk, subresource));
}

/** A PolicyException's `match` prepared once (see `compileExceptionMatch`). */
export interface ExceptionMatch {
  /** `matchesExceptionResources`, decided without reasons. */
  matches(request: MatchRequest): boolean;
  /**
   * Set when the match can only hold for a resource in one of these namespaces (`matchedNamespace`),
   * so a list of exceptions can be narrowed by namespace before any is tried.
   */
  readonly namespaces?: ReadonlySet<string>;
}

/**
 * `matchesExceptionResources` for exceptions whose filters name only what `compileRuleMatch`
 * prepares; undefined for the others. An exception's rules differ from a rule's: only `any`/`all`
 * count (neither matches nothing), and an empty filter never holds.
 */
export function compileExceptionMatch(match: MatchResources | undefined): ExceptionMatch | undefined {
  const every = !(match?.any && match.any.length > 0);
  const filters = every ? match?.all : match?.any;
  if (!filters || filters.length === 0) return { matches: () => false, namespaces: new Set() };
  const checks: (FilterCheck | undefined)[] = [];
  for (const filter of filters) {
    if (!filter || isEmptyFilter(filter)) {
      checks.push(undefined);
      continue;
    }
    const check = compileFilter(filter);
    if (!check) return undefined;
    checks.push(check);
  }
  return {
    matches: (request) => {
      const resource = request.resource;
      if (!resource) return false;
      const gvk = request.requestKind ?? gvkOf(resource);
      for (const check of checks) {
        const holds = check !== undefined && check.holds(request, gvk);
        if (holds !== every) return holds;
      }
      return every;
    },
    namespaces: every ? allOf(checks) : anyOf(checks),
  };
}

/** The namespaces `all` filters can hold in: those of any filter that names some (each must hold). */
function allOf(checks: readonly (FilterCheck | undefined)[]): ReadonlySet<string> | undefined {
  if (checks.some((check) => check === undefined)) return new Set();
  return checks.find((check) => check?.namespaces)?.namespaces;
}

/** The namespaces `any` filters can hold in: all of theirs, unless one holds in any namespace. */
function anyOf(checks: readonly (FilterCheck | undefined)[]): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const check of checks) {
    if (!check) continue;
    if (!check.namespaces) return undefined;
    for (const name of check.namespaces) names.add(name);
  }
  return names;
}

/** Whether a block's filters hold: one of them (`any`, legacy) or every one (`all`); a zero filter never holds. */
function blockHolds(block: CompiledBlock, request: MatchRequest, gvk: GroupVersionKind): boolean {
  for (const filter of block.filters) {
    const holds = !filter.zero && filter.holds(request, gvk);
    if (holds !== block.every) return holds;
  }
  return block.every;
}

interface CompiledBlock {
  readonly every: boolean;
  readonly filters: readonly FilterCheck[];
}

/**
 * A match/exclude block as one list: `any` (one filter), `all` (every filter) or the legacy single
 * filter. In a match, a zero filter never holds ("match cannot be empty"); in an exclude it never
 * excludes: both read as "does not hold".
 */
function compileBlock(block: MatchResources | undefined): CompiledBlock | undefined {
  const source = block ?? {};
  const every = !(source.any && source.any.length > 0) && Boolean(source.all && source.all.length > 0);
  const filters =
    source.any && source.any.length > 0
      ? source.any
      : source.all && source.all.length > 0
        ? source.all
        : [
            {
              resources: source.resources,
              roles: source.roles,
              clusterRoles: source.clusterRoles,
              subjects: source.subjects,
            },
          ];
  const checks: FilterCheck[] = [];
  for (const filter of filters) {
    const check = compileFilter(filter ?? {});
    if (!check) return undefined;
    checks.push(check);
  }
  return { every, filters: checks };
}

function compileFilter(filter: ResourceFilter): FilterCheck | undefined {
  if ([filter.roles, filter.clusterRoles, filter.subjects].some((value) => value !== undefined && value !== null))
    return undefined;
  const rd = filter.resources ?? {};
  const setFields = Object.entries(rd).filter(([, value]) => value !== undefined && value !== null);
  if (setFields.some(([field]) => !PREPARED_FIELDS.has(field))) return undefined;
  const kinds =
    rd.kinds && rd.kinds.length > 0 ? rd.kinds.map((kind) => compileKindSelector(parseKind(kind))) : undefined;
  const operations = rd.operations && rd.operations.length > 0 ? rd.operations : undefined;
  const names = rd.names && rd.names.length > 0 ? rd.names.map(compileWildcard) : undefined;
  const nameMatches = rd.name ? compileWildcard(rd.name) : undefined;
  const namespaces = rd.namespaces && rd.namespaces.length > 0 ? compileNamespaces(rd.namespaces) : undefined;
  const { selector } = rd;
  const kindHolds = (gvk: GroupVersionKind, subresource: string) =>
    !kinds || kinds.some((kind) => kind(gvk, subresource, true));
  return {
    zero: isZeroDescription(filter.resources),
    kindHolds,
    namespaces: namespaces?.only,
    holds: (request, gvk) => {
      if (operations && !operations.includes(request.operation)) return false;
      if (!kindHolds(gvk, request.subresource ?? '')) return false;
      if (nameMatches || names) {
        const resourceName = resourceNameOf(request.resource);
        if (nameMatches && !nameMatches(resourceName)) return false;
        if (names && !names.some((matches) => matches(resourceName))) return false;
      }
      if (namespaces && !namespaces.holds(matchedNamespace(request))) return false;
      if (selector !== undefined && selector !== null) {
        const result = checkSelector(selector, stringMapAt(request.resource, 'labels'));
        if (result.error !== undefined || !result.matched) return false;
      }
      return true;
    },
  };
}

/**
 * A `namespaces` list prepared once: plain names in a set (lists of many are common), wildcards
 * compiled; `only` is the set when there are no wildcards (the filter holds in those alone).
 */
function compileNamespaces(patterns: readonly string[]): {
  holds(namespace: string): boolean;
  only?: ReadonlySet<string>;
} {
  const names = new Set(patterns.filter((pattern) => !hasWildcard(pattern)));
  const wildcards = patterns.filter(hasWildcard).map(compileWildcard);
  return {
    holds: (namespace) => names.has(namespace) || wildcards.some((matches) => matches(namespace)),
    only: wildcards.length === 0 ? names : undefined,
  };
}
