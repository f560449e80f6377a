import type { PodSecurityStandardExclude } from '../policy/types';
import { wildcardMatch } from '@edict/foundation';
import { checkIdsOf } from './controls';
import { type EnforcedLevel, type CheckOutcome, runChecks } from './evaluate-checks';
import { badValueStrings } from './field-error';
import { type ContainerListName, type ContainerModel, emptyPod, type PodModel } from './model';
import type { PolicyMinor } from './version';

const DIGITS = /\d+/g;
const WORDS = /[a-zA-Z]+/g;
const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((pattern) => wildcardMatch(pattern, value));
}

/**
 * An exclusion without `images` works on pod-level fields: the pod is re-checked with its
 * containers replaced by one bare placeholder container.
 */
function podLevelView(pod: PodModel): PodModel {
  const placeholder: ContainerModel = { name: 'fake', image: '', hostPorts: [], handlerHosts: [] };
  return { ...pod, initContainers: [], containers: [placeholder], ephemeralContainers: [] };
}

/**
 * An exclusion with `images` works on containers: a pod holding only the containers whose image
 * matches (no pod-level fields, no annotations).
 */
function matchingContainersView(pod: PodModel, images: readonly string[]): PodModel {
  const keep = (containers: ContainerModel[]) => containers.filter((container) => matchesAny(images, container.image));
  return {
    ...emptyPod(),
    initContainers: keep(pod.initContainers),
    containers: keep(pod.containers),
    ephemeralContainers: keep(pod.ephemeralContainers),
  };
}

interface ParsedField {
  /** The field with every index replaced by `*`, comparable with `restrictedField`. */
  pattern: string;
  /** Set when the field is inside a container: which list and which index. */
  container?: { list: ContainerListName; index: number };
}

function parseField(field: string, containerLevel: boolean): ParsedField {
  const pattern = field.replace(DIGITS, '*');
  if (!containerLevel) return { pattern };
  const list = field.match(WORDS)?.[1];
  const index = field.match(DIGITS)?.[0];
  if (list === undefined || index === undefined || !CONTAINER_LISTS.has(list)) return { pattern };
  return { pattern, container: { list: list as ContainerListName, index: Number(index) } };
}

function containerName(pod: PodModel, parsed: ParsedField): string {
  return parsed.container ? (pod[parsed.container.list][parsed.container.index]?.name ?? '') : '';
}

/**
 * Removes from `results` what one exclusion exempts. Mirrors Kyverno: the exclusion's view of
 * the pod is re-checked, and every field error it produces for the control's checks (matching
 * `restrictedField` when given, and with every bad value matching `values` when given) cancels
 * the first identical error in the real results - same field pattern and, for container fields,
 * same container name. A check with no errors left is dropped. Removal swaps the last error into
 * the removed slot, as Kyverno does, which is visible in the message order.
 */
function exempt(
  results: CheckOutcome[],
  exclude: PodSecurityStandardExclude,
  ids: readonly string[],
  pod: PodModel,
  view: PodModel,
  viewResults: CheckOutcome[],
  containerLevel: boolean,
): CheckOutcome[] {
  const restrictedField = exclude.restrictedField ?? '';
  const values = exclude.values ?? [];
  for (const viewResult of viewResults) {
    if (!ids.includes(viewResult.id)) continue;
    for (const viewError of viewResult.errors) {
      const excluded = parseField(viewError.field, containerLevel);
      if (restrictedField !== '' && excluded.pattern !== restrictedField) continue;
      if (values.length > 0 && badValueStrings(viewError).some((value) => !matchesAny(values, value))) continue;
      const target = results.find((result) => result.id === viewResult.id);
      if (!target) continue;
      const excludedContainer = containerName(view, excluded);
      const index = target.errors.findIndex((error) => {
        const actual = parseField(error.field, containerLevel);
        if (actual.pattern !== excluded.pattern) return false;
        return actual.container ? containerName(pod, actual) === excludedContainer : true;
      });
      if (index >= 0) {
        target.errors[index] = target.errors[target.errors.length - 1]!;
        target.errors.pop();
      }
      if (target.errors.length === 0) results = results.filter((result) => result !== target);
    }
  }
  return results;
}

/** Applies exclusions in order to the failing checks of `pod`; returns the checks still failing. */
export function applyExclusions(
  level: EnforcedLevel,
  minor: PolicyMinor,
  excludes: readonly PodSecurityStandardExclude[],
  failing: readonly CheckOutcome[],
  pod: PodModel,
): CheckOutcome[] {
  // Work on copies: exclusions edit error lists in place.
  let results = failing.map((result) => ({ ...result, errors: [...result.errors] }));
  for (const exclude of excludes) {
    const ids = checkIdsOf(exclude.controlName);
    if (ids.length === 0 || results.length === 0) continue;
    const images = exclude.images ?? [];
    const containerLevel = images.length > 0;
    const view = containerLevel ? matchingContainersView(pod, images) : podLevelView(pod);
    const viewResults = runChecks(level, minor, view, ids);
    results = exempt(results, exclude, ids, pod, view, viewResults, containerLevel);
  }
  return results;
}
