import { forbidden, type FieldError } from '../field-error';
import type { PodModel } from '../model';
import type { CheckDefinition, CheckFailure } from './types';

/** The "safe" sysctl allow-list grows with the Kubernetes version. */
const ALLOWED_V1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const ALLOWED_V1_27 = [...ALLOWED_V1_0, 'net.ipv4.ip_local_reserved_ports'];
const ALLOWED_V1_29 = [
  ...ALLOWED_V1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const ALLOWED_V1_32 = [...ALLOWED_V1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctlsCheckFor(allowedList: string[]): (pod: PodModel) => CheckFailure | undefined {
  const allowed = new Set(allowedList);
  return (pod) => {
    const names: string[] = [];
    const errors: FieldError[] = [];
    pod.securityContext?.sysctls.forEach((sysctl, index) => {
      if (allowed.has(sysctl.name)) return;
      names.push(sysctl.name);
      errors.push(forbidden(`spec.securityContext.sysctls[${index}].name`, sysctl.name));
    });
    if (names.length === 0) return undefined;
    return { reason: 'forbidden sysctls', detail: names.join(', '), errors };
  };
}

export const sysctlsCheck: CheckDefinition = {
  id: 'sysctls',
  level: 'baseline',
  versions: [
    { minor: 0, run: sysctlsCheckFor(ALLOWED_V1_0) },
    { minor: 27, run: sysctlsCheckFor(ALLOWED_V1_27) },
    { minor: 29, run: sysctlsCheckFor(ALLOWED_V1_29) },
    { minor: 32, run: sysctlsCheckFor(ALLOWED_V1_32) },
  ],
};
