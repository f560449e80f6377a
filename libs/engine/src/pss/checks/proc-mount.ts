import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, inUserNamespace, visitContainers } from './types';

/** `securityContext.procMount` must be unset or `Default`. */
function procMountV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const types: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const procMount = container.securityContext?.procMount;
    if (procMount === undefined || procMount === 'Default') continue;
    names.push(container.name);
    types.push(procMount);
    errors.push(forbidden(`${path}.securityContext.procMount`, procMount));
  }
  if (names.length === 0) return undefined;
  return {
    reason: 'procMount',
    detail: `${pluralize('container', 'containers', names.length)} ${joinQuote(names)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
    errors,
  };
}

/** Baseline from v1.35: user-namespaced pods may unmask /proc. */
function procMountV1Dot35Baseline(pod: PodModel): CheckFailure | undefined {
  return inUserNamespace(pod) ? undefined : procMountV1Dot0(pod);
}

export const procMountCheck: CheckDefinition = {
  id: 'procMount',
  level: 'baseline',
  versions: [
    { minor: 0, run: procMountV1Dot0 },
    { minor: 35, run: procMountV1Dot35Baseline },
  ],
};

/** Restricted from v1.35: keeps the unconditional rule that baseline relaxed for user namespaces. */
export const procMountRestrictedCheck: CheckDefinition = {
  id: 'procMount_restricted',
  level: 'restricted',
  versions: [{ minor: 35, run: procMountV1Dot0 }],
};
