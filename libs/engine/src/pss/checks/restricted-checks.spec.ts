import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { evaluatePodSecurity } from '../index';
import { pod, restricted, restrictedContainer } from '@edict/engine/testing';

function failingIds(spec: JsonObject, version = 'latest'): string[] {
  return evaluatePodSecurity(restricted(version), pod(spec)).checks.map((check) => check.id);
}

function check(spec: JsonObject, id: string) {
  const found = evaluatePodSecurity(restricted(), pod(spec)).checks.find((c) => c.id === id);
  expect(found, id).toBeDefined();
  return found!;
}

describe('restricted checks', () => {
  it('passes a hardened pod', () => {
    expect(failingIds({ containers: [restrictedContainer()] })).toEqual([]);
  });

  it('passes pod-level runAsNonRoot and seccomp defaults', () => {
    const spec = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } },
      ],
    };
    expect(failingIds(spec)).toEqual([]);
  });

  it('reports every restricted failure of a bare container, in check order', () => {
    const result = evaluatePodSecurity(restricted(), pod({ containers: [{ name: 'nginx', image: 'nginx' }] }));
    expect(result.checks.map((c) => c.id)).toEqual([
      'allowPrivilegeEscalation',
      'capabilities_restricted',
      'runAsNonRoot',
      'seccompProfile_restricted',
    ]);
    expect(result.message).toBe(
      'It violates PodSecurity "restricted:latest": ' +
        '(Forbidden reason: allowPrivilegeEscalation != false, field error list: [spec.containers[0].securityContext.allowPrivilegeEscalation: Required value])' +
        '(Forbidden reason: unrestricted capabilities, field error list: [spec.containers[0].securityContext.capabilities.drop: Required value])' +
        '(Forbidden reason: runAsNonRoot != true, field error list: [spec.containers[0].securityContext.runAsNonRoot: Required value])' +
        '(Forbidden reason: seccompProfile, field error list: [spec.containers[0].securityContext.seccompProfile.type: Required value])',
    );
  });

  describe('privilege escalation', () => {
    it('distinguishes missing securityContext, unset field and true', () => {
      const c = check(
        {
          containers: [
            restrictedContainer('ok'),
            { ...restrictedContainer('none'), securityContext: null },
            {
              ...restrictedContainer('unset'),
              securityContext: {
                runAsNonRoot: true,
                seccompProfile: { type: 'RuntimeDefault' },
                capabilities: { drop: ['ALL'] },
              },
            },
            { ...restrictedContainer('yes'), securityContext: { allowPrivilegeEscalation: true } },
          ],
        },
        'allowPrivilegeEscalation',
      );
      expect(c.forbiddenDetail).toBe(
        'containers "none", "unset", "yes" must set securityContext.allowPrivilegeEscalation=false',
      );
      expect(c.fieldErrors).toEqual([
        { type: 'Required', field: 'spec.containers[1].securityContext.allowPrivilegeEscalation', badValue: '' },
        { type: 'Forbidden', field: 'spec.containers[2].securityContext.allowPrivilegeEscalation', badValue: 'nil' },
        { type: 'Forbidden', field: 'spec.containers[3].securityContext.allowPrivilegeEscalation', badValue: true },
      ]);
    });
  });

  describe('capabilities (restricted)', () => {
    it('requires drop ALL and allows only NET_BIND_SERVICE to be added', () => {
      const container = restrictedContainer('a');
      (container.securityContext as JsonObject).capabilities = {
        drop: ['NET_RAW', 'CHOWN'],
        add: ['NET_BIND_SERVICE', 'SYS_TIME'],
      };
      const c = check({ containers: [container] }, 'capabilities_restricted');
      expect(c.forbiddenDetail).toBe(
        'container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_TIME" in securityContext.capabilities.add',
      );
      expect(c.fieldErrors).toEqual([
        {
          type: 'Forbidden',
          field: 'spec.containers[0].securityContext.capabilities.drop',
          badValue: ['CHOWN', 'NET_RAW'],
        },
        { type: 'Forbidden', field: 'spec.containers[0].securityContext.capabilities.add', badValue: ['SYS_TIME'] },
      ]);
      // SYS_TIME is also outside the baseline set: both capability checks fail.
      expect(failingIds({ containers: [container] })).toEqual(['capabilities_baseline', 'capabilities_restricted']);
    });

    it('allows adding NET_BIND_SERVICE after dropping ALL', () => {
      const container = restrictedContainer('a');
      (container.securityContext as JsonObject).capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] };
      expect(failingIds({ containers: [container] })).toEqual([]);
    });
  });

  describe('running as non-root', () => {
    it('reports explicit false and implicit unset together', () => {
      const explicit = restrictedContainer('explicit');
      (explicit.securityContext as JsonObject).runAsNonRoot = false;
      const implicit = restrictedContainer('implicit');
      delete (implicit.securityContext as JsonObject).runAsNonRoot;
      const c = check({ containers: [explicit, implicit] }, 'runAsNonRoot');
      expect(c.forbiddenDetail).toBe(
        'container "explicit" must not set securityContext.runAsNonRoot=false\npod or container "implicit" must set securityContext.runAsNonRoot=true',
      );
      expect(c.images).toEqual(['docker.io/nginx:1.27']);
    });

    it('fails pod-level runAsNonRoot=false', () => {
      const container = restrictedContainer('a');
      const c = check({ securityContext: { runAsNonRoot: false }, containers: [container] }, 'runAsNonRoot');
      expect(c.forbiddenDetail).toBe('pod must not set securityContext.runAsNonRoot=false');
    });
  });

  describe('running as non-root user', () => {
    it('fails runAsUser=0 at pod and container level, allows other uids', () => {
      const root = restrictedContainer('root');
      (root.securityContext as JsonObject).runAsUser = 0;
      const user = restrictedContainer('user');
      (user.securityContext as JsonObject).runAsUser = 1000;
      const c = check({ securityContext: { runAsUser: 0 }, containers: [root, user] }, 'runAsUser');
      expect(c.forbiddenDetail).toBe('pod and container "root" must not set runAsUser=0');
      expect(c.fieldErrors.map((e) => e.badValue)).toEqual([0, 0]);
      expect(failingIds({ securityContext: { runAsUser: 1000 }, containers: [user] })).toEqual([]);
    });
  });

  describe('seccomp (restricted)', () => {
    it('requires a profile on every container unless the pod sets one', () => {
      const bare = restrictedContainer('bare');
      delete (bare.securityContext as JsonObject).seccompProfile;
      expect(check({ containers: [bare] }, 'seccompProfile_restricted').forbiddenDetail).toBe(
        'pod or container "bare" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
      );
      expect(
        failingIds({
          securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
          containers: [bare],
        }),
      ).toEqual([]);
    });

    it('fails Unconfined at both levels (baseline and restricted checks)', () => {
      const unconfined = restrictedContainer('u');
      (unconfined.securityContext as JsonObject).seccompProfile = { type: 'Unconfined' };
      expect(failingIds({ containers: [unconfined] })).toEqual([
        'seccompProfile_baseline',
        'seccompProfile_restricted',
      ]);
    });
  });

  describe('volume types', () => {
    it('allows the restricted set', () => {
      const volumes: JsonObject[] = [
        { name: 'a', configMap: { name: 'c' } },
        { name: 'b', secret: { secretName: 's' } },
        { name: 'c', emptyDir: {} },
        { name: 'd', projected: { sources: [] } },
        { name: 'e', downwardAPI: { items: [] } },
        { name: 'f', persistentVolumeClaim: { claimName: 'x' } },
        { name: 'g', csi: { driver: 'd' } },
        { name: 'h', ephemeral: { volumeClaimTemplate: {} } },
        { name: 'i', image: { reference: 'r' } },
      ];
      expect(failingIds({ volumes, containers: [restrictedContainer()] })).toEqual([]);
    });

    it('fails other sources, a hostPath failing both volume checks', () => {
      const spec: JsonObject = {
        volumes: [
          { name: 'nfs', nfs: { server: 's', path: '/' } },
          { name: 'host', hostPath: { path: '/etc' } },
          { name: 'odd' },
        ],
        containers: [restrictedContainer()],
      };
      expect(failingIds(spec)).toEqual(['hostPathVolumes', 'restrictedVolumes']);
      const c = check(spec, 'restrictedVolumes');
      expect(c.forbiddenDetail).toBe(
        'volumes "nfs", "host", "odd" use restricted volume types "hostPath", "nfs", "unknown"',
      );
      expect(c.fieldErrors.map((e) => e.field)).toEqual([
        'spec.volumes[0].nfs',
        'spec.volumes[1].hostPath',
        'spec.volumes[2].unknown',
      ]);
    });
  });

  describe('/proc mount (restricted, v1.35+)', () => {
    it('fails Unmasked in both procMount checks', () => {
      const container = restrictedContainer('a');
      (container.securityContext as JsonObject).procMount = 'Unmasked';
      expect(failingIds({ containers: [container] })).toEqual(['procMount', 'procMount_restricted']);
    });
  });
});
