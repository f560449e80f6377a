import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, visitContainers } from './types';

/** Baseline: no container may set `securityContext.privileged=true`. */
function privilegedV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    if (container.securityContext?.privileged === true) {
      names.push(container.name);
      errors.push(forbidden(`${path}.securityContext.privileged`, true));
    }
  }
  if (names.length === 0) return undefined;
  return {
    reason: 'privileged',
    detail: `${pluralize('container', 'containers', names.length)} ${joinQuote(names)} must not set securityContext.privileged=true`,
    errors,
  };
}

export const privilegedCheck: CheckDefinition = {
  id: 'privileged',
  level: 'baseline',
  versions: [{ minor: 0, run: privilegedV1Dot0 }],
};
