import { appArmorProfileCheck } from './app-armor';
import { capabilitiesBaselineCheck, capabilitiesRestrictedCheck } from './capabilities';
import { hostNamespacesCheck, hostPathVolumesCheck, hostPortsCheck, hostProbesAndHostLifecycleCheck } from './host';
import { privilegedCheck } from './privileged';
import { allowPrivilegeEscalationCheck } from './privilege-escalation';
import { procMountCheck, procMountRestrictedCheck } from './proc-mount';
import { runAsNonRootCheck, runAsUserCheck } from './run-as';
import { seLinuxOptionsCheck } from './se-linux';
import { seccompProfileBaselineCheck, seccompProfileRestrictedCheck } from './seccomp';
import { sysctlsCheck } from './sysctls';
import type { CheckDefinition } from './types';
import { restrictedVolumesCheck } from './volumes';
import { windowsHostProcessCheck } from './windows-host-process';

/**
 * Every check, in the order the pod-security-admission library registers them (its source files
 * in byte order), which is the order failures appear in Kyverno's message. Kyverno runs all of
 * them for `restricted` (no upstream "override" pruning), so e.g. a hostPath volume fails both
 * `hostPathVolumes` and `restrictedVolumes`.
 */
export const ALL_CHECKS: readonly CheckDefinition[] = [
  allowPrivilegeEscalationCheck,
  appArmorProfileCheck,
  capabilitiesBaselineCheck,
  capabilitiesRestrictedCheck,
  hostNamespacesCheck,
  hostPathVolumesCheck,
  hostPortsCheck,
  hostProbesAndHostLifecycleCheck,
  privilegedCheck,
  procMountCheck,
  procMountRestrictedCheck,
  restrictedVolumesCheck,
  runAsNonRootCheck,
  runAsUserCheck,
  seLinuxOptionsCheck,
  seccompProfileBaselineCheck,
  seccompProfileRestrictedCheck,
  sysctlsCheck,
  windowsHostProcessCheck,
];
