import { hasWildcard, wildcardMatch } from '@edict/foundation';
import type { Findings, Path } from './findings';

interface Override {
  action?: string;
  namespaces?: string[];
}

const VALID_ACTIONS = ['enforce', 'audit', 'Enforce', 'Audit'];

/**
 * Kyverno's validateNamespaces: a namespace (or wildcard) may not be both enforced and audited by
 * the `validationFailureActionOverrides` of a ClusterPolicy. Reports the first conflict.
 */
export function checkFailureActionOverrides(
  overrides: readonly Override[] | undefined,
  path: Path,
  findings: Findings,
): void {
  const sets = {
    enforce: new Set<string>(),
    audit: new Set<string>(),
    enforceW: new Set<string>(),
    auditW: new Set<string>(),
  };
  for (const [i, override] of (overrides ?? []).entries()) {
    const action = override.action ?? '';
    if (!VALID_ACTIONS.includes(action)) {
      findings.error([...path, i, 'action'], 'invalid action');
      return;
    }
    const namespaces = override.namespaces ?? [];
    const patterns = namespaces.filter(hasWildcard);
    const plain = namespaces.filter((ns) => !hasWildcard(ns));
    const at = [...path, i, 'namespaces'];
    const where = `spec.validationFailureActionOverrides[${i}].namespaces`;
    const audit = action.toLowerCase() === 'audit';
    const opposite = audit ? sets.enforce : sets.audit;
    const conflicts = plain.filter((ns) => opposite.has(ns)).sort();
    if (conflicts.length > 0) {
      findings.error(at, `conflicting namespaces found in path: ${where}: ${conflicts.join(', ')}`);
      return;
    }
    for (const p of patterns) (audit ? sets.auditW : sets.enforceW).add(p);
    for (const ns of plain) (audit ? sets.audit : sets.enforce).add(ns);
    const problem = wildcardConflict(sets);
    if (problem) {
      findings.error(at, `path: ${where}: ${problem}`);
      return;
    }
  }
}

function wildcardConflict(sets: {
  enforce: Set<string>;
  audit: Set<string>;
  enforceW: Set<string>;
  auditW: Set<string>;
}): string | undefined {
  const sorted = (s: Set<string>) => [...s].sort();
  const first = (patterns: string[], values: string[]): [string, string] | undefined => {
    for (const p of patterns) for (const v of values) if (wildcardMatch(p, v)) return [p, v];
    return undefined;
  };
  let hit = first(sorted(sets.auditW), sorted(sets.enforce)) ?? first(sorted(sets.enforceW), sorted(sets.audit));
  if (hit) return `wildcard pattern '${hit[0]}' matches with namespace '${hit[1]}'`;
  hit = first(sorted(sets.auditW), sorted(sets.enforceW)) ?? first(sorted(sets.enforceW), sorted(sets.auditW));
  if (hit) return `wildcard pattern '${hit[0]}' conflicts with the pattern '${hit[1]}'`;
  return undefined;
}
