import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { evaluatePodSecurity } from './index';
import { baseline, pod, restricted, restrictedContainer } from '@edict/engine/testing';

function withCaps(name: string, image: string, add: string[]): JsonObject {
  const container = restrictedContainer(name, image);
  (container.securityContext as JsonObject).capabilities = { drop: ['ALL'], add };
  return container;
}

describe('exclusions: controlName only (pod-level controls)', () => {
  const hostPod = pod({
    hostNetwork: true,
    hostPID: true,
    volumes: [{ name: 'h', hostPath: { path: '/data' } }],
    containers: [{ name: 'a', image: 'nginx' }],
  });

  it('exempts the whole control', () => {
    const result = evaluatePodSecurity(baseline('latest', [{ controlName: 'Host Namespaces' }]), hostPod);
    expect(result.checks.map((c) => c.id)).toEqual(['hostPathVolumes']);
    const both = evaluatePodSecurity(
      baseline('latest', [{ controlName: 'Host Namespaces' }, { controlName: 'HostPath Volumes' }]),
      hostPod,
    );
    expect(both.allowed).toBe(true);
  });

  it('ignores unknown control names', () => {
    const result = evaluatePodSecurity(baseline('latest', [{ controlName: 'Host Network' }]), hostPod);
    expect(result.checks.map((c) => c.id)).toEqual(['hostNamespaces', 'hostPathVolumes']);
  });

  it('excluding Capabilities covers both capability checks at restricted', () => {
    const resource = pod({ containers: [withCaps('a', 'nginx', ['SYS_ADMIN'])] });
    expect(evaluatePodSecurity(restricted(), resource).checks.map((c) => c.id)).toEqual([
      'capabilities_baseline',
      'capabilities_restricted',
    ]);
    expect(
      evaluatePodSecurity(restricted('latest', [{ controlName: 'Capabilities', images: ['nginx'] }]), resource).allowed,
    ).toBe(true);
  });
});

describe('exclusions: images (container-level controls)', () => {
  const resource = pod({
    containers: [withCaps('web', 'ghcr.io/acme/nginx:1.2', ['SYS_ADMIN']), withCaps('cache', 'redis:7', ['NET_ADMIN'])],
  });

  it('exempts only containers whose image matches a wildcard', () => {
    const result = evaluatePodSecurity(
      restricted('latest', [{ controlName: 'Capabilities', images: ['ghcr.io/acme/*'] }]),
      resource,
    );
    expect(result.checks.map((c) => c.id)).toEqual(['capabilities_baseline', 'capabilities_restricted']);
    for (const check of result.checks) {
      expect(check.fieldErrors.map((e) => e.field)).toEqual(['spec.containers[1].securityContext.capabilities.add']);
    }
    const all = evaluatePodSecurity(
      restricted('latest', [{ controlName: 'Capabilities', images: ['ghcr.io/acme/*', 'redis?7'] }]),
      resource,
    );
    expect(all.allowed).toBe(true);
  });

  it('matches containers by name, so an exempted image does not cover another container', () => {
    const twins = pod({
      initContainers: [withCaps('setup', 'busybox', ['SYS_ADMIN'])],
      containers: [withCaps('app', 'trusted/app:1', ['SYS_ADMIN'])],
    });
    const result = evaluatePodSecurity(
      baseline('latest', [{ controlName: 'Capabilities', images: ['trusted/*'] }]),
      twins,
    );
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0]!.fieldErrors.map((e) => e.field)).toEqual([
      'spec.initContainers[0].securityContext.capabilities.add',
    ]);
  });

  it('leaves pod-level fields alone when images are given', () => {
    const resource2 = pod({ hostNetwork: true, containers: [{ name: 'a', image: 'nginx' }] });
    const result = evaluatePodSecurity(
      baseline('latest', [{ controlName: 'Host Namespaces', images: ['*'] }]),
      resource2,
    );
    expect(result.checks.map((c) => c.id)).toEqual(['hostNamespaces']);
  });
});

describe('exclusions: restrictedField and values', () => {
  const resource = pod({
    hostNetwork: true,
    hostPID: true,
    volumes: [
      { name: 'logs', hostPath: { path: '/var/log' } },
      { name: 'sock', hostPath: { path: '/var/run/docker.sock' } },
    ],
    containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }],
  });

  it('exempts only the named field', () => {
    const result = evaluatePodSecurity(
      baseline('latest', [{ controlName: 'Host Namespaces', restrictedField: 'spec.hostNetwork', values: ['true'] }]),
      resource,
    );
    const hostNamespaces = result.checks.find((c) => c.id === 'hostNamespaces')!;
    expect(hostNamespaces.fieldErrors.map((e) => e.field)).toEqual(['spec.hostPID']);
  });

  it('requires every bad value to match one of the values (wildcards allowed)', () => {
    const some = evaluatePodSecurity(
      baseline('latest', [
        { controlName: 'HostPath Volumes', restrictedField: 'spec.volumes[*].hostPath', values: ['/var/log'] },
      ]),
      resource,
    );
    expect(some.checks.find((c) => c.id === 'hostPathVolumes')!.fieldErrors.map((e) => e.badValue)).toEqual([
      '/var/run/docker.sock',
    ]);
    const all = evaluatePodSecurity(
      baseline('latest', [
        { controlName: 'HostPath Volumes', restrictedField: 'spec.volumes[*].hostPath', values: ['/var/*'] },
        { controlName: 'Host Namespaces' },
      ]),
      resource,
    );
    expect(all.checks.map((c) => c.id)).toEqual(['hostPorts']);
  });

  it('does nothing when the restrictedField does not match the error path', () => {
    const result = evaluatePodSecurity(
      baseline('latest', [{ controlName: 'Host Namespaces', restrictedField: 'spec.hostIPC', values: ['true'] }]),
      resource,
    );
    expect(result.checks.find((c) => c.id === 'hostNamespaces')!.fieldErrors).toHaveLength(2);
  });

  it('compares container fields by pattern and value', () => {
    const ports = [
      { controlName: 'Host Ports', images: ['nginx'], restrictedField: 'spec.containers[*].ports[*].hostPort' },
    ];
    const wrongValue = evaluatePodSecurity(baseline('latest', [{ ...ports[0]!, values: ['9090'] }]), resource);
    expect(wrongValue.checks.map((c) => c.id)).toContain('hostPorts');
    const rightValue = evaluatePodSecurity(baseline('latest', [{ ...ports[0]!, values: ['8080'] }]), resource);
    expect(rightValue.checks.map((c) => c.id)).not.toContain('hostPorts');
  });

  it('exempts a privileged container by value', () => {
    const privileged = pod({
      containers: [
        { name: 'a', image: 'agent:1', securityContext: { privileged: true } },
        { name: 'b', image: 'other:1', securityContext: { privileged: true } },
      ],
    });
    const exclude = [
      {
        controlName: 'Privileged Containers',
        images: ['agent:*'],
        restrictedField: 'spec.containers[*].securityContext.privileged',
        values: ['true'],
      },
    ];
    const result = evaluatePodSecurity(baseline('latest', exclude), privileged);
    expect(result.checks[0]!.fieldErrors.map((e) => e.field)).toEqual([
      'spec.containers[1].securityContext.privileged',
    ]);
  });

  it('lets Required errors through any values list (they carry no value)', () => {
    const resource2 = pod({ containers: [{ name: 'a', image: 'nginx' }] });
    const result = evaluatePodSecurity(
      restricted('latest', [
        {
          controlName: 'Running as Non-root',
          images: ['nginx'],
          restrictedField: 'spec.containers[*].securityContext.runAsNonRoot',
          values: ['false'],
        },
      ]),
      resource2,
    );
    expect(result.checks.map((c) => c.id)).not.toContain('runAsNonRoot');
  });

  it('cancels one error per matching exclusion error, swapping the last error into its place', () => {
    // Pod-level view of a container control: its single placeholder container cancels only one of the
    // real containers' errors, like Kyverno.
    const three = pod({
      containers: [
        { name: 'a', image: 'x', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
        { name: 'b', image: 'x' },
        { name: 'c', image: 'x' },
        { name: 'd', image: 'x' },
      ],
    });
    const before = evaluatePodSecurity(restricted(), three).checks.find((c) => c.id === 'seccompProfile_restricted')!;
    expect(before.fieldErrors.map((e) => e.field)).toEqual([
      'spec.containers[1].securityContext.seccompProfile.type',
      'spec.containers[2].securityContext.seccompProfile.type',
      'spec.containers[3].securityContext.seccompProfile.type',
    ]);
    const after = evaluatePodSecurity(restricted('latest', [{ controlName: 'Seccomp' }]), three).checks.find(
      (c) => c.id === 'seccompProfile_restricted',
    )!;
    expect(after.fieldErrors.map((e) => e.field)).toEqual([
      'spec.containers[3].securityContext.seccompProfile.type',
      'spec.containers[2].securityContext.seccompProfile.type',
    ]);
  });
});

describe('PolicyException exclusions', () => {
  const resource = pod({
    volumes: [{ name: 'h', hostPath: { path: '/var/lib1' } }],
    containers: [{ name: 'a', image: 'nginx' }],
  });
  const exceptionExcludes = [
    { controlName: 'HostPath Volumes', restrictedField: 'spec.volumes[*].hostPath', values: ['/var/lib1'] },
  ];

  it('marks a failing rule exempted when the exception clears every failure', () => {
    const result = evaluatePodSecurity(baseline(), resource, { exceptionExcludes });
    expect(result).toEqual({ allowed: false, exempted: true, checks: [], message: '' });
  });

  it('keeps failing, with the remaining checks only, when it does not', () => {
    const result = evaluatePodSecurity(
      baseline(),
      pod({ hostIPC: true, volumes: [{ name: 'h', hostPath: { path: '/var/lib1' } }], containers: [] }),
      {
        exceptionExcludes,
      },
    );
    expect(result.exempted).toBe(false);
    expect(result.checks.map((c) => c.id)).toEqual(['hostNamespaces']);
    expect(result.message).toBe(
      'It violates PodSecurity "baseline:latest": (Forbidden reason: host namespaces, field error list: [spec.hostIPC is forbidden, forbidden values found: true])',
    );
  });

  it('is not consulted when the rule passes', () => {
    const result = evaluatePodSecurity(baseline(), pod({ containers: [] }), { exceptionExcludes });
    expect(result).toMatchObject({ allowed: true, exempted: false });
  });

  it('applies to pod controllers too (exclusions run before paths are rewritten)', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { volumes: [{ name: 'h', hostPath: { path: '/var/lib1' } }], containers: [] } } },
    };
    expect(evaluatePodSecurity(baseline(), deployment, { exceptionExcludes }).exempted).toBe(true);
  });
});
