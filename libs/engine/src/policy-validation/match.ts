import { isObject, type JsonObject, type JsonValue, hasWildcard } from '@edict/foundation';
import type { MatchResources, ResourceDescription, ResourceFilter, UserInfoFilter } from '../policy';
import type { RuleCheck } from './check-context';
import type { Findings, Path } from './findings';
import { isClusterScoped } from './kinds';

/**
 * Kyverno's checks of a rule's `match` and `exclude` blocks (MatchResources.Validate and the
 * resource checks of the policy validator).
 */
export function checkMatchBlocks(c: RuleCheck): void {
  const { rule, path, findings } = c;
  const match = isObject(rule.match as JsonValue) ? rule.match : ({} as MatchResources);
  checkMatchResources(match, [...path, 'match'], c);
  if (hasAnyOrAll(match) && !isEmptyDescription(match.resources)) {
    findings.error([...path, 'match'], "can't specify any/all together with match resources");
  }
  if (!hasAnyOrAll(match) && isEmptyDescription(match.resources)) {
    findings.error([...path, 'match', 'resources'], 'match resources not specified');
  }
  for (const key of ['any', 'all'] as const) {
    (match[key] ?? []).forEach((filter, i) => {
      if (isEmptyDescription(filter.resources))
        findings.error([...path, 'match', key, i, 'resources'], 'match resources not specified');
    });
  }
  const exclude = rule.exclude;
  if (exclude && isObject(exclude as JsonValue)) {
    checkMatchResources(exclude, [...path, 'exclude'], c);
    if (hasAnyOrAll(exclude) && !isEmptyDescription(exclude.resources)) {
      findings.error([...path, 'exclude'], "can't specify any/all together with exclude resources");
    }
  }
}

/** MatchResources.Validate: any/all exclusivity, user info and resource descriptions. */
export function checkMatchResources(
  m: MatchResources,
  path: Path,
  c: { namespaced: boolean; clusterKinds: ReadonlySet<string>; findings: Findings },
): void {
  if ((m.any?.length ?? 0) > 0 && (m.all?.length ?? 0) > 0)
    c.findings.error(path, "Can't specify any and all together");
  for (const key of ['any', 'all'] as const) {
    (m[key] ?? []).forEach((filter: ResourceFilter, i) => {
      checkUserInfo(filter, [...path, key, i], c.findings);
      if (filter.resources) checkResourceDescription(filter.resources, [...path, key, i, 'resources'], c);
    });
  }
  checkUserInfo(m, path, c.findings);
  if (m.resources) checkResourceDescription(m.resources, [...path, 'resources'], c);
}

const SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'];

function checkUserInfo(u: UserInfoFilter, path: Path, findings: Findings): void {
  (u.subjects ?? []).forEach((subject, i) => {
    const at = [...path, 'subjects', i];
    if (!subject.kind) findings.error([...at, 'kind'], 'Required value');
    else if (!SUBJECT_KINDS.includes(subject.kind)) {
      findings.error([...at, 'kind'], "kind must be 'User', 'Group', or 'ServiceAccount'");
    }
    if (!subject.name) findings.error([...at, 'name'], 'Required value');
    if (subject.kind === 'ServiceAccount' && !subject.namespace) {
      findings.error([...at, 'namespace'], 'Required value: namespace is required when Kind is ServiceAccount');
    }
  });
  (u.roles ?? []).forEach((role, i) => {
    if (role.split(':').length !== 2)
      findings.error([...path, 'roles', i], 'Role is expected to be in namespace:name format');
  });
}

function checkResourceDescription(
  rd: ResourceDescription,
  path: Path,
  c: { namespaced: boolean; clusterKinds: ReadonlySet<string>; findings: Findings },
): void {
  if (rd.name && (rd.names?.length ?? 0) > 0)
    c.findings.error(path, 'Both name and names can not be specified together');
  if (
    rd.selector &&
    !selectorHasWildcard(rd.selector as JsonObject) &&
    selectorRequirements(rd.selector as JsonObject) === 0
  ) {
    c.findings.error([...path, 'selector'], 'The requirements are not specified in selector');
  }
  if (!c.namespaced) return;
  if ((rd.namespaces?.length ?? 0) > 0) {
    c.findings.error([...path, 'namespaces'], 'Filtering namespaces not allowed in namespaced policies');
  }
  (rd.kinds ?? []).forEach((kind, i) => {
    if (isClusterScoped(kind, c.clusterKinds)) {
      c.findings.error([...path, 'kinds', i], `Cluster wide resource '${kind}' not allowed in namespaced policy`);
    }
  });
}

function selectorHasWildcard(selector: JsonObject): boolean {
  const labels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  return Object.entries(labels).some(([k, v]) => hasWildcard(k) || (typeof v === 'string' && hasWildcard(v)));
}

function selectorRequirements(selector: JsonObject): number {
  const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
  return labels + expressions;
}

export function hasAnyOrAll(m: MatchResources | undefined): boolean {
  return (m?.any?.length ?? 0) > 0 || (m?.all?.length ?? 0) > 0;
}

/** Go's DeepEqual with the zero ResourceDescription: no field holds a value. */
export function isEmptyDescription(rd: ResourceDescription | undefined): boolean {
  if (!rd || !isObject(rd as JsonValue)) return true;
  return Object.values(rd as JsonObject).every(
    (v) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0),
  );
}

/** Every kind named in a match or exclude block (legacy resources, all, any). */
export function kindsOf(m: MatchResources | undefined): string[] {
  if (!m) return [];
  return [
    ...(m.resources?.kinds ?? []),
    ...(m.all ?? []).flatMap((f) => f.resources?.kinds ?? []),
    ...(m.any ?? []).flatMap((f) => f.resources?.kinds ?? []),
  ];
}
