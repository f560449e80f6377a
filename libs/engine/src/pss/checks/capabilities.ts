import { forbidden, required, type FieldError } from '../field-error';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, isWindowsPod, visitContainers } from './types';

const BASELINE_ALLOWED = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** Baseline: `capabilities.add` limited to the default container runtime set. */
function capabilitiesBaselineV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const allForbidden: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const added = container.securityContext?.capabilities?.add ?? [];
    const bad = added.filter((capability) => !BASELINE_ALLOWED.has(capability));
    if (bad.length === 0) continue;
    names.push(container.name);
    allForbidden.push(...bad);
    errors.push(forbidden(`${path}.securityContext.capabilities.add`, sortedSet(bad)));
  }
  if (names.length === 0) return undefined;
  return {
    reason: 'non-default capabilities',
    detail: `${pluralize('container', 'containers', names.length)} ${joinQuote(names)} must not include ${joinQuote(sortedSet(allForbidden))} in securityContext.capabilities.add`,
    errors,
  };
}

/** Restricted: every container drops ALL and adds nothing but NET_BIND_SERVICE. */
function capabilitiesRestrictedV1Dot22(pod: PodModel): CheckFailure | undefined {
  const missingDropAll: string[] = [];
  const missingDropErrors: FieldError[] = [];
  const addingForbidden: string[] = [];
  const addingErrors: FieldError[] = [];
  const allForbidden: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const capabilities = container.securityContext?.capabilities;
    const dropPath = `${path}.securityContext.capabilities.drop`;
    if (!capabilities) {
      missingDropAll.push(container.name);
      missingDropErrors.push(required(dropPath));
      continue;
    }
    if (!capabilities.drop.includes('ALL')) {
      missingDropAll.push(container.name);
      missingDropErrors.push(
        capabilities.drop.length > 0 ? forbidden(dropPath, sortedSet(capabilities.drop)) : required(dropPath),
      );
    }
    const bad = capabilities.add.filter((capability) => capability !== 'NET_BIND_SERVICE');
    if (bad.length > 0) {
      addingForbidden.push(container.name);
      allForbidden.push(...bad);
      addingErrors.push(forbidden(`${path}.securityContext.capabilities.add`, sortedSet(bad)));
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) {
    details.push(
      `${pluralize('container', 'containers', missingDropAll.length)} ${joinQuote(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`,
    );
  }
  if (addingForbidden.length > 0) {
    details.push(
      `${pluralize('container', 'containers', addingForbidden.length)} ${joinQuote(addingForbidden)} must not include ${joinQuote(sortedSet(allForbidden))} in securityContext.capabilities.add`,
    );
  }
  if (details.length === 0) return undefined;
  return {
    reason: 'unrestricted capabilities',
    detail: details.join('; '),
    errors: [...missingDropErrors, ...addingErrors],
  };
}

/** From v1.25 Windows pods (`spec.os.name: windows`) are exempt: they cannot set capabilities. */
function capabilitiesRestrictedV1Dot25(pod: PodModel): CheckFailure | undefined {
  return isWindowsPod(pod) ? undefined : capabilitiesRestrictedV1Dot22(pod);
}

export const capabilitiesBaselineCheck: CheckDefinition = {
  id: 'capabilities_baseline',
  level: 'baseline',
  versions: [{ minor: 0, run: capabilitiesBaselineV1Dot0 }],
};

export const capabilitiesRestrictedCheck: CheckDefinition = {
  id: 'capabilities_restricted',
  level: 'restricted',
  versions: [
    { minor: 22, run: capabilitiesRestrictedV1Dot22 },
    { minor: 25, run: capabilitiesRestrictedV1Dot25 },
  ],
};
