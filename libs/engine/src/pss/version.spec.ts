import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { evaluatePodSecurity, PodSecurityError } from './index';
import { baseline, pod, restricted, restrictedContainer } from '@edict/engine/testing';
import { parsePolicyVersion } from './version';

function ids(level: 'baseline' | 'restricted', version: string, spec: JsonObject): string[] {
  const podSecurity = level === 'baseline' ? baseline(version) : restricted(version);
  return evaluatePodSecurity(podSecurity, pod(spec)).checks.map((c) => c.id);
}

const sysctlPod = (name: string) => ({ securityContext: { sysctls: [{ name, value: '1' }] }, containers: [] });

describe('parsePolicyVersion', () => {
  it('reads latest, empty and v1.x', () => {
    expect(parsePolicyVersion('latest')).toBe(Infinity);
    expect(parsePolicyVersion('')).toBe(Infinity);
    expect(parsePolicyVersion(undefined)).toBe(Infinity);
    expect(parsePolicyVersion('v1.29')).toBe(29);
    expect(parsePolicyVersion('v1.0')).toBe(0);
  });

  it.each(['1.29', 'v1.029', 'v2.0', 'v1.29.1', 'V1.29', 'v1.'])('rejects %s with Kyverno wording', (version) => {
    expect(() => parsePolicyVersion(version)).toThrowError(
      'failed to parse pod security api version: must be "latest" or "v1.x"',
    );
  });

  it('reports a bad version from evaluatePodSecurity as a PodSecurityError', () => {
    const call = () => evaluatePodSecurity({ level: 'baseline', version: 'v1' }, pod({ containers: [] }));
    expect(call).toThrow(PodSecurityError);
  });
});

describe('version gating', () => {
  it('grows the sysctl allow-list by version', () => {
    expect(ids('baseline', 'v1.26', sysctlPod('net.ipv4.ip_local_reserved_ports'))).toEqual(['sysctls']);
    expect(ids('baseline', 'v1.27', sysctlPod('net.ipv4.ip_local_reserved_ports'))).toEqual([]);
    expect(ids('baseline', 'v1.28', sysctlPod('net.ipv4.tcp_keepalive_time'))).toEqual(['sysctls']);
    expect(ids('baseline', 'v1.29', sysctlPod('net.ipv4.tcp_keepalive_time'))).toEqual([]);
    expect(ids('baseline', 'v1.31', sysctlPod('net.ipv4.tcp_rmem'))).toEqual(['sysctls']);
    expect(ids('baseline', 'v1.32', sysctlPod('net.ipv4.tcp_wmem'))).toEqual([]);
    expect(ids('baseline', 'latest', sysctlPod('net.ipv4.tcp_rmem'))).toEqual([]);
  });

  it('evaluates only the newest applicable version of a check (older lists do not fail newer sysctls)', () => {
    expect(ids('baseline', 'v1.30', sysctlPod('net.ipv4.ip_local_reserved_ports'))).toEqual([]);
  });

  it('allows container_engine_t from v1.31', () => {
    const spec = { containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] };
    expect(ids('baseline', 'v1.30', spec)).toEqual(['seLinuxOptions']);
    expect(ids('baseline', 'v1.31', spec)).toEqual([]);
  });

  it('applies the host probe check from v1.34 only', () => {
    const spec = { containers: [{ name: 'a', startupProbe: { tcpSocket: { port: 80, host: 'h' } } }] };
    expect(ids('baseline', 'v1.33', spec)).toEqual([]);
    expect(ids('baseline', 'v1.34', spec)).toEqual(['hostProbesAndHostLifecycle']);
    expect(ids('baseline', 'latest', spec)).toEqual(['hostProbesAndHostLifecycle']);
  });

  it('checks seccomp annotations before v1.19 and fields from v1.19', () => {
    const spec = { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] };
    const withAnnotation = pod(
      { containers: [{ name: 'a' }] },
      { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } },
    );
    expect(ids('baseline', 'v1.18', spec)).toEqual([]);
    expect(ids('baseline', 'v1.19', spec)).toEqual(['seccompProfile_baseline']);
    const old = evaluatePodSecurity(baseline('v1.18'), withAnnotation).checks;
    expect(old.map((c) => c.forbiddenDetail)).toEqual([
      'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"',
    ]);
    expect(evaluatePodSecurity(baseline('v1.19'), withAnnotation).allowed).toBe(true);
  });

  it('introduces restricted checks at their versions', () => {
    const bare = { containers: [{ name: 'a', securityContext: { runAsNonRoot: true, runAsUser: 0 } }] };
    expect(ids('restricted', 'v1.7', bare)).toEqual([]);
    expect(ids('restricted', 'v1.8', bare)).toEqual(['allowPrivilegeEscalation']);
    expect(ids('restricted', 'v1.19', bare)).toEqual(['allowPrivilegeEscalation', 'seccompProfile_restricted']);
    expect(ids('restricted', 'v1.22', bare)).toEqual([
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'seccompProfile_restricted',
    ]);
    expect(ids('restricted', 'v1.23', bare)).toEqual([
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'runAsUser',
      'seccompProfile_restricted',
    ]);
  });

  it('exempts Windows pods from the Linux-only restricted checks from v1.25', () => {
    const spec = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'a' }] };
    expect(ids('restricted', 'v1.24', spec)).toEqual([
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'seccompProfile_restricted',
    ]);
    expect(ids('restricted', 'v1.25', spec)).toEqual([]);
  });

  it('relaxes user-namespaced pods only from v1.35', () => {
    const root = restrictedContainer('a');
    delete (root.securityContext as JsonObject).runAsNonRoot;
    (root.securityContext as JsonObject).runAsUser = 0;
    (root.securityContext as JsonObject).procMount = 'Unmasked';
    const userns = { hostUsers: false, containers: [root] };
    expect(ids('restricted', 'v1.34', userns)).toEqual(['procMount', 'runAsNonRoot', 'runAsUser']);
    expect(ids('restricted', 'latest', userns)).toEqual(['procMount_restricted']);
    expect(ids('baseline', 'latest', userns)).toEqual([]);
    expect(ids('restricted', 'latest', { ...userns, hostUsers: true })).toEqual([
      'procMount',
      'procMount_restricted',
      'runAsNonRoot',
      'runAsUser',
    ]);
  });

  it('treats versions newer than every check like latest', () => {
    expect(ids('baseline', 'v1.99', sysctlPod('net.ipv4.tcp_rmem'))).toEqual([]);
  });
});

describe('privileged level', () => {
  it('allows everything', () => {
    const result = evaluatePodSecurity(
      { level: 'privileged', version: 'latest' },
      pod({ hostNetwork: true, containers: [{ name: 'a', securityContext: { privileged: true } }] }),
    );
    expect(result).toEqual({ allowed: true, exempted: false, checks: [], message: '' });
  });

  it('rejects an unknown level', () => {
    expect(() => evaluatePodSecurity({ level: 'strict' as never }, pod({ containers: [] }))).toThrow(
      /invalid pod security level/,
    );
  });
});
