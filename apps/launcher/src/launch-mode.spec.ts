import { describe, expect, it } from 'vitest';
import { launchModeOf } from './launch-mode';

describe('launchModeOf', () => {
  const local = '.edict/kubeconfig';

  it('is local without KUBECONFIG and outside a pod', () => {
    expect(launchModeOf({}, local, '/repo')).toEqual({ kind: 'local' });
    expect(launchModeOf({ KUBECONFIG: '  ', KUBERNETES_SERVICE_HOST: '' }, local, '/repo')).toEqual({ kind: 'local' });
  });

  it('runs against the cluster inside a pod, even with a KUBECONFIG', () => {
    expect(launchModeOf({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBECONFIG: '/k' }, local, '/repo')).toEqual({
      kind: 'cluster',
      source: 'in-cluster',
      description: 'in-cluster (KUBERNETES_SERVICE_HOST=10.0.0.1)',
    });
  });

  it('runs against the cluster a KUBECONFIG names', () => {
    expect(launchModeOf({ KUBECONFIG: '/home/me/.kube/config' }, local, '/repo')).toEqual({
      kind: 'cluster',
      source: 'kubeconfig',
      description: 'KUBECONFIG=/home/me/.kube/config',
    });
  });

  it("is local when KUBECONFIG is the local cluster's own file (left exported from an earlier run)", () => {
    expect(launchModeOf({ KUBECONFIG: '/repo/.edict/kubeconfig' }, local, '/repo')).toEqual({ kind: 'local' });
    expect(launchModeOf({ KUBECONFIG: '.edict/kubeconfig' }, '/repo/.edict/kubeconfig', '/repo')).toEqual({
      kind: 'local',
    });
  });

  it('counts a KUBECONFIG list that merely includes the local file as a cluster', () => {
    expect(launchModeOf({ KUBECONFIG: '/repo/.edict/kubeconfig:/other' }, local, '/repo').kind).toBe('cluster');
  });
});
