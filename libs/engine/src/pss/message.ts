import { ImageReferenceError, parseImageReference } from '@edict/foundation';
import type { CheckOutcome } from './evaluate-checks';
import { formatFieldError } from './field-error';
import type { ContainerModel, PodModel } from './model';
import { TEMPLATE_KINDS } from './pod-source';

/**
 * Rewrites field paths from the pod to the resource, as Kyverno does for the failure message:
 * a plain text replacement of every `spec` (and then every `metadata`) in the path. Kyverno
 * applies the `metadata` step to every kind, Pods included, so AppArmor annotation errors read
 * `spec.template.metadata.annotations[...]` even on a Pod.
 */
export function resourceFieldPath(field: string, kind: string): string {
  let path = field;
  if (TEMPLATE_KINDS.has(kind)) path = path.replaceAll('spec', 'spec.template.spec');
  else if (kind === 'CronJob') path = path.replaceAll('spec', 'spec.jobTemplate.spec.template.spec');
  return path.replaceAll('metadata', 'spec.template.metadata');
}

/** `(Forbidden reason: <reason>, field error list: [<error>, <error>])`, one group per check, unseparated. */
export function formatChecks(checks: readonly CheckOutcome[]): string {
  return checks
    .map(
      (check) =>
        `(Forbidden reason: ${check.reason}, field error list: [${check.errors.map(formatFieldError).join(', ')}])`,
    )
    .join('');
}

export function violationMessage(level: string, version: string | undefined, checks: readonly CheckOutcome[]): string {
  return `It violates PodSecurity "${level}:${version ?? ''}": ${formatChecks(checks)}`;
}

const CONTAINER_NAMES = /container(?:s)?\s*(.*?)\s*must/;

function findContainer(pod: PodModel, name: string): ContainerModel | undefined {
  return (
    pod.containers.find((c) => c.name === name) ??
    pod.initContainers.find((c) => c.name === name) ??
    pod.ephemeralContainers.find((c) => c.name === name)
  );
}

/**
 * Kyverno's ImageInfo string for a container image (`registry/path:tag`, or `registry/path@digest`),
 * from the same parser as the `images` variable. Kyverno reads it from the request's image infos;
 * a resource with an unparseable image never gets that far in the engine (every matching rule
 * errors first), and without an info Kyverno falls back to the container name, so we do too.
 */
function imageReference(container: ContainerModel): string {
  try {
    return parseImageReference(container.image).reference;
  } catch (error) {
    if (error instanceof ImageReferenceError) return container.name;
    throw error;
  }
}

/**
 * Images of the containers a check names, read back from its detail text the way Kyverno does
 * (so checks whose detail has no "container(s) ... must" phrase report none). Unknown names are
 * reported as-is.
 */
export function imagesOfCheck(detail: string, pod: PodModel): string[] | undefined {
  const match = CONTAINER_NAMES.exec(detail);
  if (!match) return undefined;
  const names = (match[1] ?? '').replaceAll('"', '').replaceAll(' ', '').split(',');
  return names.map((name) => {
    const container = findContainer(pod, name);
    return container ? imageReference(container) : name;
  });
}
