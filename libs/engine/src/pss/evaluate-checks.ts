import { ALL_CHECKS } from './checks/registry';
import type { CheckFn } from './checks/types';
import type { FieldError } from './field-error';
import type { PodModel } from './model';
import type { PolicyMinor } from './version';

export type EnforcedLevel = 'baseline' | 'restricted';

/** One failing check as it moves through exclusions and message formatting. */
export interface CheckOutcome {
  id: string;
  reason: string;
  detail: string;
  errors: FieldError[];
}

interface SelectedCheck {
  id: string;
  run: CheckFn;
}

/** Selected implementations per level and version; the set of distinct versions in use is tiny. */
const selectionCache = new Map<string, SelectedCheck[]>();

/**
 * For each check of the level, the newest implementation whose minimum version is not above the
 * requested one (as Kubernetes does; a check introduced later than the requested version does
 * not apply). `restricted` includes every baseline check.
 */
function selectChecks(level: EnforcedLevel, minor: PolicyMinor): SelectedCheck[] {
  const key = `${level}:${minor}`;
  const cached = selectionCache.get(key);
  if (cached) return cached;
  const selected: SelectedCheck[] = [];
  for (const check of ALL_CHECKS) {
    if (level === 'baseline' && check.level !== 'baseline') continue;
    let chosen: CheckFn | undefined;
    for (const version of check.versions) if (version.minor <= minor) chosen = version.run;
    if (chosen) selected.push({ id: check.id, run: chosen });
  }
  selectionCache.set(key, selected);
  return selected;
}

/** Runs the level's checks against a pod; `onlyIds` limits the run (used by exclusions). */
export function runChecks(
  level: EnforcedLevel,
  minor: PolicyMinor,
  pod: PodModel,
  onlyIds?: readonly string[],
): CheckOutcome[] {
  const failures: CheckOutcome[] = [];
  for (const { id, run } of selectChecks(level, minor)) {
    if (onlyIds && !onlyIds.includes(id)) continue;
    const failure = run(pod);
    if (failure) failures.push({ id, reason: failure.reason, detail: failure.detail, errors: failure.errors });
  }
  return failures;
}
