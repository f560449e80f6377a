/**
 * Kyverno's PSS control names (used in `exclude[].controlName`) and the check IDs behind them.
 */
export const CONTROL_CHECK_IDS: Readonly<Record<string, readonly string[]>> = {
  Capabilities: ['capabilities_baseline', 'capabilities_restricted'],
  Seccomp: ['seccompProfile_baseline', 'seccompProfile_restricted'],
  'Privileged Containers': ['privileged'],
  'Host Ports': ['hostPorts'],
  '/proc Mount Type': ['procMount', 'procMount_restricted'],
  'Host Probes / Lifecycle Hooks': ['hostProbesAndHostLifecycle'],
  HostProcess: ['windowsHostProcess'],
  SELinux: ['seLinuxOptions'],
  'Host Namespaces': ['hostNamespaces'],
  'HostPath Volumes': ['hostPathVolumes'],
  Sysctls: ['sysctls'],
  AppArmor: ['appArmorProfile'],
  'Privilege Escalation': ['allowPrivilegeEscalation'],
  'Running as Non-root': ['runAsNonRoot'],
  'Running as Non-root user': ['runAsUser'],
  'Volume Types': ['restrictedVolumes'],
};

const CONTROL_BY_CHECK_ID: ReadonlyMap<string, string> = new Map(
  Object.entries(CONTROL_CHECK_IDS).flatMap(([control, ids]) => ids.map((id) => [id, control] as const)),
);

export function controlNameOf(checkId: string): string {
  return CONTROL_BY_CHECK_ID.get(checkId) ?? '';
}

export function checkIdsOf(controlName: string): readonly string[] {
  return Object.prototype.hasOwnProperty.call(CONTROL_CHECK_IDS, controlName) ? CONTROL_CHECK_IDS[controlName]! : [];
}

/** Controls only in the restricted profile (cannot be excluded from a baseline rule). */
export const RESTRICTED_CONTROLS: readonly string[] = [
  'Volume Types',
  'Privilege Escalation',
  'Running as Non-root',
  'Running as Non-root user',
  'Seccomp',
  'Capabilities',
];

/** Controls that concern pod-level fields only: exclusions for them take no `images`. */
export const POD_LEVEL_CONTROLS: readonly string[] = ['Host Namespaces', 'HostPath Volumes', 'Sysctls', 'Volume Types'];

/** Controls that concern container fields only: exclusions for them need `images`. */
export const CONTAINER_LEVEL_CONTROLS: readonly string[] = [
  'Capabilities',
  'Privileged Containers',
  'Host Ports',
  '/proc Mount Type',
  'Privilege Escalation',
  'Host Probes / Lifecycle Hooks',
];
