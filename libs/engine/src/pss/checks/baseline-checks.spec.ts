import { describe, expect, it } from 'vitest';
import { evaluatePodSecurity } from '../index';
import { baseline, pod, podWithContainerSecurity } from '@edict/engine/testing';

function failing(resource: Parameters<typeof evaluatePodSecurity>[1], version = 'latest') {
  return evaluatePodSecurity(baseline(version), resource).checks;
}

function only(resource: Parameters<typeof evaluatePodSecurity>[1], version = 'latest') {
  const checks = failing(resource, version);
  expect(checks).toHaveLength(1);
  return checks[0]!;
}

describe('baseline checks', () => {
  it('passes a plain pod', () => {
    expect(evaluatePodSecurity(baseline(), pod({ containers: [{ name: 'a', image: 'nginx' }] })).allowed).toBe(true);
  });

  describe('privileged', () => {
    it('fails privileged containers, naming them and the field', () => {
      const check = only(
        pod({
          initContainers: [{ name: 'init', image: 'busybox', securityContext: { privileged: true } }],
          containers: [
            { name: 'a', image: 'nginx', securityContext: { privileged: false } },
            { name: 'b', image: 'nginx', securityContext: { privileged: true } },
          ],
        }),
      );
      expect(check).toMatchObject({
        id: 'privileged',
        controlName: 'Privileged Containers',
        forbiddenReason: 'privileged',
      });
      expect(check.forbiddenDetail).toBe('containers "init", "b" must not set securityContext.privileged=true');
      expect(check.fieldErrors.map((e) => e.field)).toEqual([
        'spec.initContainers[0].securityContext.privileged',
        'spec.containers[1].securityContext.privileged',
      ]);
    });

    it('passes privileged: false and null', () => {
      expect(failing(podWithContainerSecurity({ privileged: false }))).toEqual([]);
      expect(failing(podWithContainerSecurity({ privileged: null }))).toEqual([]);
    });
  });

  describe('host namespaces', () => {
    it('fails each host namespace that is true', () => {
      const check = only(pod({ hostNetwork: true, hostIPC: true, hostPID: false, containers: [{ name: 'a' }] }));
      expect(check).toMatchObject({
        id: 'hostNamespaces',
        forbiddenReason: 'host namespaces',
        forbiddenDetail: 'hostNetwork=true, hostIPC=true',
      });
    });

    it('passes when they are false', () => {
      expect(failing(pod({ hostNetwork: false, hostPID: false, hostIPC: false, containers: [] }))).toEqual([]);
    });
  });

  describe('hostPath volumes', () => {
    it('fails hostPath volumes and records the path', () => {
      const check = only(
        pod({
          volumes: [
            { name: 'ok', emptyDir: {} },
            { name: 'host', hostPath: { path: '/var/run' } },
          ],
          containers: [],
        }),
      );
      expect(check).toMatchObject({
        id: 'hostPathVolumes',
        forbiddenReason: 'hostPath volumes',
        forbiddenDetail: 'volume "host"',
      });
      expect(check.fieldErrors).toEqual([
        { type: 'Forbidden', field: 'spec.volumes[1].hostPath', badValue: '/var/run' },
      ]);
    });
  });

  describe('host ports', () => {
    it('fails non-zero host ports, listing distinct ports in text order', () => {
      const check = only(
        pod({
          containers: [
            {
              name: 'a',
              ports: [
                { containerPort: 80, hostPort: 8080 },
                { containerPort: 81, hostPort: 0 },
              ],
            },
            { name: 'b', ports: [{ containerPort: 80, hostPort: 443 }, { hostPort: 8080 }] },
          ],
        }),
      );
      expect(check.forbiddenDetail).toBe('containers "a", "b" use hostPorts 443, 8080');
      expect(check.fieldErrors.map((e) => e.field)).toEqual([
        'spec.containers[0].ports[0].hostPort',
        'spec.containers[1].ports[0].hostPort',
        'spec.containers[1].ports[1].hostPort',
      ]);
    });

    it('passes hostPort 0 or unset', () => {
      expect(
        failing(
          pod({ containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 0 }, { containerPort: 81 }] }] }),
        ),
      ).toEqual([]);
    });
  });

  describe('capabilities (baseline)', () => {
    it('fails capabilities outside the default set', () => {
      const check = only(podWithContainerSecurity({ capabilities: { add: ['NET_RAW', 'CHOWN', 'SYS_ADMIN'] } }));
      expect(check).toMatchObject({
        id: 'capabilities_baseline',
        controlName: 'Capabilities',
        forbiddenReason: 'non-default capabilities',
      });
      expect(check.forbiddenDetail).toBe(
        'container "app" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
      );
      expect(check.fieldErrors[0]?.badValue).toEqual(['NET_RAW', 'SYS_ADMIN']);
    });

    it('passes the default set and drops', () => {
      expect(
        failing(
          podWithContainerSecurity({ capabilities: { add: ['CHOWN', 'KILL', 'NET_BIND_SERVICE'], drop: ['ALL'] } }),
        ),
      ).toEqual([]);
    });
  });

  describe('/proc mount', () => {
    it('fails Unmasked and passes Default', () => {
      expect(only(podWithContainerSecurity({ procMount: 'Unmasked' })).forbiddenDetail).toBe(
        'container "app" must not set securityContext.procMount to "Unmasked"',
      );
      expect(failing(podWithContainerSecurity({ procMount: 'Default' }))).toEqual([]);
    });
  });

  describe('SELinux', () => {
    it('fails custom types, user and role at pod and container level', () => {
      const check = only(
        pod({
          securityContext: { seLinuxOptions: { user: 'system_u' } },
          containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'spc_t', role: 'sysadm_r' } } }],
        }),
      );
      expect(check.forbiddenDetail).toBe(
        'pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set',
      );
      expect(check.fieldErrors.map((e) => e.field)).toEqual([
        'spec.securityContext.seLinuxOptions.user',
        'spec.containers[0].securityContext.seLinuxOptions.type',
        'spec.containers[0].securityContext.seLinuxOptions.role',
      ]);
    });

    it('passes allowed types and level-only options', () => {
      expect(
        failing(
          pod({
            securityContext: { seLinuxOptions: { level: 's0:c123,c456' } },
            containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_init_t' } } }],
          }),
        ),
      ).toEqual([]);
    });
  });

  describe('seccomp (baseline)', () => {
    it('fails Unconfined and passes RuntimeDefault, Localhost or unset', () => {
      const check = only(
        pod({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }),
      );
      expect(check).toMatchObject({ id: 'seccompProfile_baseline', controlName: 'Seccomp' });
      expect(check.forbiddenDetail).toBe('pod must not set securityContext.seccompProfile.type to "Unconfined"');
      expect(
        failing(podWithContainerSecurity({ seccompProfile: { type: 'Localhost', localhostProfile: 'x.json' } })),
      ).toEqual([]);
      expect(failing(pod({ containers: [{ name: 'a' }] }))).toEqual([]);
    });
  });

  describe('sysctls', () => {
    it('fails unsafe sysctls only', () => {
      const check = only(
        pod({
          securityContext: {
            sysctls: [
              { name: 'kernel.shm_rmid_forced', value: '0' },
              { name: 'kernel.msgmax', value: '1' },
            ],
          },
          containers: [],
        }),
      );
      expect(check).toMatchObject({
        id: 'sysctls',
        forbiddenReason: 'forbidden sysctls',
        forbiddenDetail: 'kernel.msgmax',
      });
      expect(check.fieldErrors).toEqual([
        { type: 'Forbidden', field: 'spec.securityContext.sysctls[1].name', badValue: 'kernel.msgmax' },
      ]);
    });
  });

  describe('Windows HostProcess', () => {
    it('fails hostProcess at pod and container level', () => {
      const check = only(
        pod({
          securityContext: { windowsOptions: { hostProcess: true } },
          containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'b' }],
        }),
      );
      expect(check.forbiddenDetail).toBe(
        'pod and container "a" must not set securityContext.windowsOptions.hostProcess=true',
      );
    });

    it('passes hostProcess false', () => {
      expect(failing(podWithContainerSecurity({ windowsOptions: { hostProcess: false } }))).toEqual([]);
    });
  });

  describe('AppArmor', () => {
    it('fails unconfined profile fields and annotations', () => {
      const check = only(
        pod(
          { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] },
          { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } },
        ),
      );
      expect(check.forbiddenReason).toBe('forbidden AppArmor profiles');
      expect(check.forbiddenDetail).toBe(
        'pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/a=\\"unconfined\\""',
      );
    });

    it('passes runtime/default and localhost/* annotations and allowed types', () => {
      const resource = pod(
        {
          containers: [
            { name: 'a', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } } },
          ],
        },
        {
          annotations: {
            'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default',
            'container.apparmor.security.beta.kubernetes.io/b': 'localhost/custom',
          },
        },
      );
      expect(failing(resource)).toEqual([]);
    });
  });

  describe('host probes and lifecycle hooks', () => {
    it('fails a host on probes and lifecycle handlers', () => {
      const check = only(
        pod({
          containers: [
            {
              name: 'a',
              livenessProbe: { httpGet: { path: '/', port: 80, host: '10.0.0.1' } },
              lifecycle: { preStop: { tcpSocket: { port: 80, host: 'example.com' } } },
            },
          ],
        }),
      );
      expect(check).toMatchObject({ id: 'hostProbesAndHostLifecycle', controlName: 'Host Probes / Lifecycle Hooks' });
      expect(check.forbiddenDetail).toBe('container "a" uses probe or lifecycle hosts "10.0.0.1", "example.com"');
      expect(check.fieldErrors.map((e) => e.field)).toEqual([
        'spec.containers[0].livenessProbe.httpGet.host',
        'spec.containers[0].lifecycle.preStop.tcpSocket.host',
      ]);
    });

    it('passes probes without a host', () => {
      expect(
        failing(pod({ containers: [{ name: 'a', readinessProbe: { httpGet: { path: '/', port: 80, host: '' } } }] })),
      ).toEqual([]);
    });
  });

  it('does not apply restricted checks at baseline', () => {
    const resource = pod({
      volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }],
      containers: [{ name: 'a', securityContext: { runAsUser: 0 } }],
    });
    expect(failing(resource)).toEqual([]);
  });
});
