import { forbidden, required, type FieldError } from '../field-error';
import { joinQuote, pluralize } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, isWindowsPod, visitContainers } from './types';

/**
 * Restricted: every container must set `allowPrivilegeEscalation: false`. The fork reports a
 * missing securityContext as Required, an unset field inside one as Forbidden with the string
 * "nil", and `true` as Forbidden with the value.
 */
function allowPrivilegeEscalationV1Dot8(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const field = `${path}.securityContext.allowPrivilegeEscalation`;
    const securityContext = container.securityContext;
    if (securityContext?.allowPrivilegeEscalation === false) continue;
    names.push(container.name);
    if (!securityContext) errors.push(required(field));
    else if (securityContext.allowPrivilegeEscalation === undefined) errors.push(forbidden(field, 'nil'));
    else errors.push(forbidden(field, true));
  }
  if (names.length === 0) return undefined;
  return {
    reason: 'allowPrivilegeEscalation != false',
    detail: `${pluralize('container', 'containers', names.length)} ${joinQuote(names)} must set securityContext.allowPrivilegeEscalation=false`,
    errors,
  };
}

function allowPrivilegeEscalationV1Dot25(pod: PodModel): CheckFailure | undefined {
  return isWindowsPod(pod) ? undefined : allowPrivilegeEscalationV1Dot8(pod);
}

export const allowPrivilegeEscalationCheck: CheckDefinition = {
  id: 'allowPrivilegeEscalation',
  level: 'restricted',
  versions: [
    { minor: 8, run: allowPrivilegeEscalationV1Dot8 },
    { minor: 25, run: allowPrivilegeEscalationV1Dot25 },
  ],
};
