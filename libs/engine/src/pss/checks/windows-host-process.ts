import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, visitContainers } from './types';

/** Baseline: Windows HostProcess containers are not allowed, at pod or container level. */
function windowsHostProcessV1Dot0(pod: PodModel): CheckFailure | undefined {
  const setters: string[] = [];
  const errors: FieldError[] = [];
  if (pod.securityContext?.windowsOptions?.hostProcess === true) {
    setters.push('pod');
    errors.push(forbidden('spec.securityContext.windowsOptions.hostProcess', true));
  }
  const names: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    if (container.securityContext?.windowsOptions?.hostProcess !== true) continue;
    names.push(container.name);
    errors.push(forbidden(`${path}.securityContext.windowsOptions.hostProcess`, true));
  }
  if (names.length > 0) setters.push(`${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`);
  if (setters.length === 0) return undefined;
  return {
    reason: 'hostProcess',
    detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
    errors,
  };
}

export const windowsHostProcessCheck: CheckDefinition = {
  id: 'windowsHostProcess',
  level: 'baseline',
  versions: [{ minor: 0, run: windowsHostProcessV1Dot0 }],
};
