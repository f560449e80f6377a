import {
  deepEqual,
  type JsonValue,
  wildcardMatch,
  type LabelSelector,
  type LabelSelectorRequirement,
} from '@edict/foundation';
import type { MatchResources, Subject } from '../policy';
import type { RuleCheck } from './check-context';

/**
 * Kyverno's ValidateMatchExcludeConflict: a rule whose exclude block removes everything its match
 * block selects is rejected ("Rule is matching an empty set"). Follows Kyverno's field-by-field
 * comparison, which only recognises the plain cases (identical `any` filters, or a legacy exclude
 * that covers every legacy match criterion).
 */
export function checkMatchExcludeConflict(c: RuleCheck): void {
  if (matchesEmptySet(c.rule.match ?? {}, c.rule.exclude)) c.findings.error(c.path, 'Rule is matching an empty set');
}

function matchesEmptySet(match: MatchResources, exclude: MatchResources | undefined): boolean {
  const ex = exclude ?? {};
  if ((ex.all?.length ?? 0) > 0 || (match.all?.length ?? 0) > 0) return false;
  if ((match.any?.length ?? 0) > 0 && (ex.any?.length ?? 0) > 0) {
    return match.any!.some((m) => ex.any!.some((e) => deepEqual(m as unknown as JsonValue, e as unknown as JsonValue)));
  }
  if (isZero(ex)) return false;
  const m = match.resources ?? {};
  const e = ex.resources ?? {};
  if (!covers(ex.roles, match.roles)) return false;
  if (!covers(ex.clusterRoles, match.clusterRoles)) return false;
  if ((ex.subjects?.length ?? 0) > 0) {
    if ((match.subjects?.length ?? 0) === 0) return false;
    const excluded = new Set(ex.subjects!.map(subjectKey));
    if (!match.subjects!.every((s) => excluded.has(subjectKey(s)))) return false;
  }
  if (e.name && !wildcardMatch(e.name, m.name ?? '')) return false;
  if ((e.names?.length ?? 0) > 0) {
    if ((m.names?.length ?? 0) === 0) return false;
    return m.names!.some((name) => e.names!.some((pattern) => wildcardMatch(pattern, name)));
  }
  if (!covers(e.namespaces, m.namespaces)) return false;
  if (!covers(e.kinds, m.kinds)) return false;
  if (!selectorCovers(m.selector, e.selector)) return false;
  if (!selectorCovers(m.namespaceSelector, e.namespaceSelector)) return false;
  if (!m.selector !== !e.selector) return false;
  if (!m.namespaceSelector !== !e.namespaceSelector) return false;
  if (m.annotations && e.annotations && !deepEqual(m.annotations, e.annotations)) return false;
  if (!m.annotations !== !e.annotations) return false;
  return true;
}

/** An exclude list that is set must hold every value of the match list (which must be set). */
function covers(excluded: readonly string[] | undefined, matched: readonly string[] | undefined): boolean {
  if ((excluded?.length ?? 0) === 0) return true;
  if ((matched?.length ?? 0) === 0) return false;
  const set = new Set(excluded);
  return matched!.every((v) => set.has(v));
}

function selectorCovers(m: LabelSelector | undefined, e: LabelSelector | undefined): boolean {
  if (!m || !e) return true;
  if ((e.matchExpressions?.length ?? 0) > 0) {
    if ((m.matchExpressions?.length ?? 0) === 0) return false;
    const excluded = new Set(e.matchExpressions!.map(requirementKey));
    if (!m.matchExpressions!.every((r) => excluded.has(requirementKey(r)))) return false;
  }
  if (Object.keys(e.matchLabels ?? {}).length > 0) {
    const labels = Object.entries(m.matchLabels ?? {});
    if (labels.length === 0) return false;
    if (!labels.every(([k, v]) => e.matchLabels![k] === v)) return false;
  }
  return true;
}

function subjectKey(s: Subject): string {
  return JSON.stringify([s.kind ?? '', s.apiGroup ?? '', s.name ?? '', s.namespace ?? '']);
}

function requirementKey(r: LabelSelectorRequirement): string {
  return JSON.stringify([r.key, r.operator, r.values ?? []]);
}

function isZero(m: MatchResources): boolean {
  return Object.values(m as Record<string, unknown>).every(
    (v) =>
      v === undefined ||
      v === null ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && Object.keys(v as object).length === 0),
  );
}
