import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { evaluatePodSecurity } from './index';
import { pod, restrictedContainer } from '@edict/engine/testing';

/**
 * The pattern-based Pod Security Standards policies (one per control) against the single
 * podSecurity rule: for each, a pod the policy accepts and one it rejects. The podSecurity rule at
 * the policy's level must agree, failing exactly on the control the policy covers.
 */
interface Case {
  policy: string;
  level: 'baseline' | 'restricted';
  control: string;
  good: JsonObject;
  bad: JsonObject;
  badMetadata?: JsonObject;
}

const hardened = (extra: JsonObject = {}, securityContext: JsonObject = {}): JsonObject => {
  const container = restrictedContainer('app', 'nginx', extra);
  Object.assign(container.securityContext as JsonObject, securityContext);
  return container;
};

const cases: Case[] = [
  {
    policy: 'disallow-capabilities',
    level: 'baseline',
    control: 'Capabilities',
    good: { containers: [hardened({}, { capabilities: { add: ['CHOWN'] } })] },
    bad: { containers: [hardened({}, { capabilities: { add: ['SYS_ADMIN'] } })] },
  },
  {
    policy: 'disallow-host-namespaces',
    level: 'baseline',
    control: 'Host Namespaces',
    good: { hostNetwork: false, containers: [hardened()] },
    bad: { hostPID: true, containers: [hardened()] },
  },
  {
    policy: 'disallow-host-path',
    level: 'baseline',
    control: 'HostPath Volumes',
    good: { volumes: [{ name: 'v', emptyDir: {} }], containers: [hardened()] },
    bad: { volumes: [{ name: 'v', hostPath: { path: '/etc' } }], containers: [hardened()] },
  },
  {
    policy: 'disallow-host-ports',
    level: 'baseline',
    control: 'Host Ports',
    good: { containers: [hardened({ ports: [{ containerPort: 80, hostPort: 0 }] })] },
    bad: { initContainers: [hardened({ ports: [{ containerPort: 80, hostPort: 80 }] })], containers: [hardened()] },
  },
  {
    policy: 'disallow-host-process',
    level: 'baseline',
    control: 'HostProcess',
    good: { containers: [hardened({}, { windowsOptions: { hostProcess: false } })] },
    bad: { containers: [hardened({}, { windowsOptions: { hostProcess: true } })] },
  },
  {
    policy: 'disallow-privileged-containers',
    level: 'baseline',
    control: 'Privileged Containers',
    good: { containers: [hardened({}, { privileged: false })] },
    bad: { ephemeralContainers: [hardened({}, { privileged: true })], containers: [hardened()] },
  },
  {
    policy: 'disallow-proc-mount',
    level: 'baseline',
    control: '/proc Mount Type',
    good: { containers: [hardened({}, { procMount: 'Default' })] },
    bad: { containers: [hardened({}, { procMount: 'Unmasked' })] },
  },
  {
    policy: 'disallow-selinux',
    level: 'baseline',
    control: 'SELinux',
    good: { securityContext: { seLinuxOptions: { type: 'container_t' } }, containers: [hardened()] },
    bad: { containers: [hardened({}, { seLinuxOptions: { role: 'sysadm_r' } })] },
  },
  {
    policy: 'restrict-apparmor-profiles',
    level: 'baseline',
    control: 'AppArmor',
    good: { containers: [hardened()] },
    bad: { containers: [hardened()] },
    badMetadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } },
  },
  {
    policy: 'restrict-seccomp',
    level: 'baseline',
    control: 'Seccomp',
    good: { containers: [hardened()] },
    bad: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [hardened()] },
  },
  {
    policy: 'restrict-sysctls',
    level: 'baseline',
    control: 'Sysctls',
    good: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] }, containers: [hardened()] },
    bad: { securityContext: { sysctls: [{ name: 'fs.mqueue.msg_max', value: '1' }] }, containers: [hardened()] },
  },
  {
    policy: 'disallow-capabilities-strict',
    level: 'restricted',
    control: 'Capabilities',
    good: { containers: [hardened({}, { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } })] },
    bad: { containers: [hardened({}, { capabilities: { drop: ['NET_RAW'] } })] },
  },
  {
    policy: 'disallow-privilege-escalation',
    level: 'restricted',
    control: 'Privilege Escalation',
    good: { containers: [hardened()] },
    bad: { containers: [hardened({}, { allowPrivilegeEscalation: true })] },
  },
  {
    policy: 'require-run-as-non-root-user',
    level: 'restricted',
    control: 'Running as Non-root user',
    good: { containers: [hardened({}, { runAsUser: 1000 })] },
    bad: { securityContext: { runAsUser: 0 }, containers: [hardened()] },
  },
  {
    policy: 'require-run-as-nonroot',
    level: 'restricted',
    control: 'Running as Non-root',
    good: { securityContext: { runAsNonRoot: true }, containers: [hardened({}, { runAsNonRoot: null })] },
    bad: { containers: [hardened({}, { runAsNonRoot: false })] },
  },
  {
    policy: 'restrict-seccomp-strict',
    level: 'restricted',
    control: 'Seccomp',
    good: {
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containers: [hardened({}, { seccompProfile: null })],
    },
    bad: { containers: [hardened({}, { seccompProfile: null })] },
  },
  {
    policy: 'restrict-volume-types',
    level: 'restricted',
    control: 'Volume Types',
    good: {
      volumes: [
        { name: 'c', configMap: { name: 'x' } },
        { name: 'p', persistentVolumeClaim: { claimName: 'x' } },
      ],
      containers: [hardened()],
    },
    bad: { volumes: [{ name: 'g', gitRepo: { repository: 'r' } }], containers: [hardened()] },
  },
];

describe('agreement with the per-control PSS policies', () => {
  it.each(cases.map((c) => [c.policy, c] as const))('%s', (_name, c) => {
    const podSecurity = { level: c.level, version: 'latest' } as const;
    expect(evaluatePodSecurity(podSecurity, pod(c.good)).checks).toEqual([]);
    const bad = evaluatePodSecurity(podSecurity, pod(c.bad, c.badMetadata));
    expect(bad.allowed).toBe(false);
    expect(new Set(bad.checks.map((check) => check.controlName))).toEqual(new Set([c.control]));
    // Excluding that control makes the rule pass again; violations on container fields are only
    // exempted through `images` (a controlName-only exclusion looks at pod-level fields).
    const containerFields = [
      'Capabilities',
      'Privileged Containers',
      'Host Ports',
      '/proc Mount Type',
      'Privilege Escalation',
      'HostProcess',
      'SELinux',
    ];
    const images = containerFields.includes(c.control) ? ['*'] : undefined;
    const excluded = evaluatePodSecurity(
      { ...podSecurity, exclude: [{ controlName: c.control, ...(images ? { images } : {}) }] },
      pod(c.bad, c.badMetadata),
    );
    expect(excluded.allowed).toBe(true);
  });

  it('does not exempt container fields through a controlName-only exclusion', () => {
    const bad = pod({ containers: [hardened({}, { seLinuxOptions: { role: 'sysadm_r' } })] });
    expect(evaluatePodSecurity({ level: 'baseline', exclude: [{ controlName: 'SELinux' }] }, bad).allowed).toBe(false);
  });

  it('covers every bench policy', () => {
    expect(cases).toHaveLength(17);
  });
});
