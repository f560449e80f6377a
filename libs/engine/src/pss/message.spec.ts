import { describe, expect, it } from 'vitest';
import { evaluatePodSecurity, podSecurityRuleMessage } from './index';
import { resourceFieldPath } from './message';
import { baseline, pod, restricted } from '@edict/engine/testing';

describe('rule messages', () => {
  it('formats pass and fail like Kyverno', () => {
    const passed = evaluatePodSecurity(baseline(), pod({ containers: [{ name: 'a' }] }));
    expect(podSecurityRuleMessage('baseline', passed)).toBe("Validation rule 'baseline' passed.");
    const failed = evaluatePodSecurity(
      baseline(),
      pod({ containers: [{ name: 'a', securityContext: { capabilities: { add: ['NET_RAW', 'SYS_ADMIN'] } } }] }),
    );
    expect(podSecurityRuleMessage('baseline', failed)).toBe(
      'Validation rule \'baseline\' failed. It violates PodSecurity "baseline:latest": ' +
        '(Forbidden reason: non-default capabilities, field error list: [spec.containers[0].securityContext.capabilities.add is forbidden, forbidden values found: [NET_RAW SYS_ADMIN]])',
    );
  });

  it('prints the version exactly as written in the policy, empty when omitted', () => {
    const resource = pod({ hostIPC: true, containers: [] });
    expect(evaluatePodSecurity({ level: 'baseline', version: 'v1.29' }, resource).message).toMatch(
      /^It violates PodSecurity "baseline:v1\.29": /,
    );
    expect(evaluatePodSecurity({ level: 'baseline' }, resource).message).toMatch(
      /^It violates PodSecurity "baseline:": /,
    );
  });

  it('separates several errors of one check with commas', () => {
    const resource = pod({
      containers: [
        { name: 'a', securityContext: { privileged: true } },
        { name: 'b', securityContext: { privileged: true } },
      ],
    });
    expect(evaluatePodSecurity(baseline(), resource).message).toBe(
      'It violates PodSecurity "baseline:latest": (Forbidden reason: privileged, field error list: [' +
        'spec.containers[0].securityContext.privileged is forbidden, forbidden values found: true, ' +
        'spec.containers[1].securityContext.privileged is forbidden, forbidden values found: true])',
    );
  });

  it('prints valueless Forbidden errors in apimachinery wording', () => {
    const resource = pod({ volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }], containers: [] });
    expect(evaluatePodSecurity(restricted(), resource).message).toBe(
      'It violates PodSecurity "restricted:latest": (Forbidden reason: restricted volume types, field error list: [spec.volumes[0].nfs: Forbidden])',
    );
  });

  it('reports annotation paths under spec.template.metadata even for Pods (Kyverno rewrite)', () => {
    const resource = pod(
      { containers: [{ name: 'a' }] },
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } },
    );
    expect(evaluatePodSecurity(baseline(), resource).message).toBe(
      'It violates PodSecurity "baseline:latest": (Forbidden reason: forbidden AppArmor profile, field error list: ' +
        '[spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/a] is forbidden, forbidden values found: unconfined])',
    );
  });
});

describe('resourceFieldPath', () => {
  it('rewrites per kind', () => {
    expect(resourceFieldPath('spec.hostPID', 'Pod')).toBe('spec.hostPID');
    expect(resourceFieldPath('spec.hostPID', 'StatefulSet')).toBe('spec.template.spec.hostPID');
    expect(resourceFieldPath('spec.hostPID', 'CronJob')).toBe('spec.jobTemplate.spec.template.spec.hostPID');
    expect(resourceFieldPath('metadata.annotations[x]', 'Deployment')).toBe('spec.template.metadata.annotations[x]');
  });
});

describe('check images', () => {
  it('lists the images of the containers a check names', () => {
    const resource = pod({
      initContainers: [
        { name: 'init', image: `busybox@sha256:${'a'.repeat(64)}`, securityContext: { privileged: true } },
      ],
      containers: [
        { name: 'app', image: 'registry.example.com:5000/team/app:2', securityContext: { privileged: true } },
      ],
    });
    expect(evaluatePodSecurity(baseline(), resource).checks[0]!.images).toEqual([
      `docker.io/busybox@sha256:${'a'.repeat(64)}`,
      'registry.example.com:5000/team/app:2',
    ]);
  });

  it('has none for pod-level checks', () => {
    expect(evaluatePodSecurity(baseline(), pod({ hostPID: true, containers: [] })).checks[0]!.images).toBeUndefined();
  });

  it.each([
    ['nginx', 'docker.io/nginx:latest'],
    ['bitnami/redis:7', 'docker.io/bitnami/redis:7'],
    ['localhost/app', 'localhost/app:latest'],
    ['ghcr.io/kyverno/test-nginx:latest', 'ghcr.io/kyverno/test-nginx:latest'],
    ['Registry/app', 'Registry/app:latest'], // an upper-case first segment is a host, as for `images`
    [`nginx:1.25@sha256:${'b'.repeat(64)}`, `docker.io/nginx@sha256:${'b'.repeat(64)}`],
  ])('reports %s as the images variable reference %s', (image, reference) => {
    const resource = pod({ containers: [{ name: 'app', image, securityContext: { privileged: true } }] });
    expect(evaluatePodSecurity(baseline(), resource).checks[0]!.images).toEqual([reference]);
  });

  it.each(['busybox@sha256:abc', 'UPPER', 'a b', ''])(
    'falls back to the container name for invalid image %j',
    (image) => {
      const resource = pod({ containers: [{ name: 'app', image, securityContext: { privileged: true } }] });
      expect(evaluatePodSecurity(baseline(), resource).checks[0]!.images).toEqual(['app']);
    },
  );
});
