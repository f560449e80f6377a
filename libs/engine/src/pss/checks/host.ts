import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, visitContainers } from './types';

/** Baseline: hostNetwork, hostPID and hostIPC must not be true. */
function hostNamespacesV1Dot0(pod: PodModel): CheckFailure | undefined {
  const found: string[] = [];
  const errors: FieldError[] = [];
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'] as const) {
    if (pod[key]) {
      found.push(`${key}=true`);
      errors.push(forbidden(`spec.${key}`, true));
    }
  }
  if (found.length === 0) return undefined;
  return { reason: 'host namespaces', detail: found.join(', '), errors };
}

/** Baseline: no hostPath volumes. The field error carries the host path. */
function hostPathVolumesV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const errors: FieldError[] = [];
  pod.volumes.forEach((volume, index) => {
    if (volume.hostPathPath === undefined) return;
    names.push(volume.name);
    errors.push(forbidden(`spec.volumes[${index}].hostPath`, volume.hostPathPath));
  });
  if (names.length === 0) return undefined;
  return {
    reason: 'hostPath volumes',
    detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}`,
    errors,
  };
}

/** Baseline: container ports must not set a non-zero hostPort. */
function hostPortsV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const ports: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    if (container.hostPorts.length === 0) continue;
    names.push(container.name);
    for (const { index, hostPort } of container.hostPorts) {
      ports.push(String(hostPort));
      // The fork records the port as a one-element string list.
      errors.push(forbidden(`${path}.ports[${index}].hostPort`, [String(hostPort)]));
    }
  }
  if (names.length === 0) return undefined;
  const distinctPorts = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${pluralize('container', 'containers', names.length)} ${joinQuote(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('hostPort', 'hostPorts', distinctPorts.length)} ${distinctPorts.join(', ')}`,
    errors,
  };
}

/** Baseline from v1.34: probes and lifecycle handlers must not set `host`. */
function hostProbesAndHostLifecycleV1Dot34(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const hosts: string[] = [];
  const errors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    if (container.handlerHosts.length === 0) continue;
    names.push(container.name);
    for (const handler of container.handlerHosts) {
      hosts.push(handler.host);
      errors.push(forbidden(`${path}.${handler.path}`, handler.host));
    }
  }
  if (names.length === 0) return undefined;
  const distinctNames = sortedSet(names);
  const distinctHosts = sortedSet(hosts);
  return {
    reason: 'probe or lifecycle host',
    detail: `${pluralize('container', 'containers', distinctNames.length)} ${joinQuote(distinctNames)} ${pluralize('uses', 'use', distinctNames.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', distinctHosts.length)} ${joinQuote(distinctHosts)}`,
    errors,
  };
}

export const hostNamespacesCheck: CheckDefinition = {
  id: 'hostNamespaces',
  level: 'baseline',
  versions: [{ minor: 0, run: hostNamespacesV1Dot0 }],
};

export const hostPathVolumesCheck: CheckDefinition = {
  id: 'hostPathVolumes',
  level: 'baseline',
  versions: [{ minor: 0, run: hostPathVolumesV1Dot0 }],
};

export const hostPortsCheck: CheckDefinition = {
  id: 'hostPorts',
  level: 'baseline',
  versions: [{ minor: 0, run: hostPortsV1Dot0 }],
};

export const hostProbesAndHostLifecycleCheck: CheckDefinition = {
  id: 'hostProbesAndHostLifecycle',
  level: 'baseline',
  versions: [{ minor: 34, run: hostProbesAndHostLifecycleV1Dot34 }],
};
