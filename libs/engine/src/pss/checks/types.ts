import type { FieldError } from '../field-error';
import type { ContainerListName, ContainerModel, PodModel } from '../model';

/** A failing check: upstream's ForbiddenReason/ForbiddenDetail plus the fork's field errors. */
export interface CheckFailure {
  reason: string;
  detail: string;
  errors: FieldError[];
}

export type CheckFn = (pod: PodModel) => CheckFailure | undefined;

export interface VersionedCheck {
  /** Minor Kubernetes version (1.x) from which this implementation applies. */
  minor: number;
  run: CheckFn;
}

export interface CheckDefinition {
  id: string;
  level: 'baseline' | 'restricted';
  /** Ascending by `minor`. */
  versions: VersionedCheck[];
}

export interface VisitedContainer {
  container: ContainerModel;
  /** Field path of the container, e.g. `spec.initContainers[0]`. */
  path: string;
  list: ContainerListName;
  index: number;
}

/** Visits are shared by all checks of one evaluation; the model is never mutated. */
const visitCache = new WeakMap<PodModel, VisitedContainer[]>();

/** Upstream visiting order: init containers, then containers, then ephemeral containers. */
export function visitContainers(pod: PodModel): readonly VisitedContainer[] {
  const cached = visitCache.get(pod);
  if (cached) return cached;
  const visited: VisitedContainer[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    pod[list].forEach((container, index) => visited.push({ container, path: `spec.${list}[${index}]`, list, index }));
  }
  visitCache.set(pod, visited);
  return visited;
}

/** KEP-127: from policy v1.35 some checks are relaxed for pods in a user namespace (`hostUsers: false`). */
export function inUserNamespace(pod: PodModel): boolean {
  return pod.hostUsers === false;
}

export function isWindowsPod(pod: PodModel): boolean {
  return pod.osName === 'windows';
}
