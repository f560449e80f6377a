import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { evaluatePodSecurity, PodSecurityError } from './index';
import { baseline, pod } from '@edict/engine/testing';

const badPodSpec: JsonObject = {
  hostPID: true,
  containers: [{ name: 'a', image: 'nginx', securityContext: { privileged: true } }],
};

function controller(kind: string, template: JsonObject): KubeObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name: 'c', namespace: 'default' }, spec: { template } };
}

describe('pod extraction', () => {
  it.each(['Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'ReplicaSet', 'ReplicationController'])(
    'reads spec.template of a %s and reports template paths',
    (kind) => {
      const result = evaluatePodSecurity(baseline(), controller(kind, { spec: badPodSpec }));
      expect(result.checks.map((c) => c.id)).toEqual(['hostNamespaces', 'privileged']);
      expect(result.message).toBe(
        'It violates PodSecurity "baseline:latest": ' +
          '(Forbidden reason: host namespaces, field error list: [spec.template.spec.hostPID is forbidden, forbidden values found: true])' +
          '(Forbidden reason: privileged, field error list: [spec.template.spec.containers[0].securityContext.privileged is forbidden, forbidden values found: true])',
      );
    },
  );

  it('reads a CronJob job template and reports its paths', () => {
    const cronJob: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: badPodSpec } } } },
    };
    const result = evaluatePodSecurity(baseline(), cronJob);
    expect(result.checks[1]!.fieldErrors[0]!.field).toBe(
      'spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged',
    );
  });

  it("uses a CronJob's job-template metadata, not its pod-template metadata, for annotations", () => {
    const annotations = { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' };
    const inPodTemplate: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: {
        jobTemplate: { spec: { template: { metadata: { annotations }, spec: { containers: [{ name: 'a' }] } } } },
      },
    };
    expect(evaluatePodSecurity(baseline(), inPodTemplate).allowed).toBe(true);
    const inJobTemplate: KubeObject = {
      ...inPodTemplate,
      spec: {
        jobTemplate: { metadata: { annotations }, spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
      },
    };
    expect(evaluatePodSecurity(baseline(), inJobTemplate).checks.map((c) => c.id)).toEqual(['appArmorProfile']);
  });

  it('uses pod template annotations of a Deployment', () => {
    const deployment = controller('Deployment', {
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } },
      spec: { containers: [{ name: 'a' }] },
    });
    const result = evaluatePodSecurity(baseline(), deployment);
    expect(result.checks[0]!.fieldErrors[0]!.field).toBe(
      'spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/a]',
    );
  });

  it('treats a controller without a template as an empty pod', () => {
    expect(
      evaluatePodSecurity(baseline(), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }).allowed,
    ).toBe(true);
  });

  it('rejects kinds without a pod', () => {
    const call = () =>
      evaluatePodSecurity(baseline(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    expect(call).toThrowError('Error while getting new resource: could not find correct resource type');
  });

  it('names the field when a value has the wrong type', () => {
    try {
      evaluatePodSecurity(baseline(), pod({ containers: [{ name: 'a', securityContext: { privileged: 'yes' } }] }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PodSecurityError);
      expect((error as PodSecurityError).path).toBe('spec.containers[0].securityContext.privileged');
      expect((error as PodSecurityError).ruleMessage).toBe(
        'Error while getting new resource: spec.containers[0].securityContext.privileged: expected boolean, got string',
      );
    }
  });

  it.each([
    [{ containers: 'x' }, 'spec.containers: expected array, got string'],
    [
      { containers: [{ name: 'a', ports: [{ hostPort: 80.5 }] }] },
      'spec.containers[0].ports[0].hostPort: expected integer, got number',
    ],
    [
      { securityContext: { runAsUser: '0' }, containers: [] },
      'spec.securityContext.runAsUser: expected integer, got string',
    ],
    [
      { containers: [{ name: 'a', securityContext: { capabilities: { add: [1] } } }] },
      'spec.containers[0].securityContext.capabilities.add[0]: expected string, got number',
    ],
  ])('rejects malformed pod %#', (spec, detail) => {
    expect(() => evaluatePodSecurity(baseline(), pod(spec as JsonObject))).toThrowError(
      `Error while getting new resource: ${detail}`,
    );
  });

  it('treats null fields as unset', () => {
    const result = evaluatePodSecurity(
      baseline(),
      pod({
        hostNetwork: null,
        securityContext: null,
        volumes: null,
        containers: [{ name: 'a', securityContext: { capabilities: null } }],
      }),
    );
    expect(result.allowed).toBe(true);
  });
});
