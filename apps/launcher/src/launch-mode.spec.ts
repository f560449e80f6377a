import { describe, expect, it } from 'vitest';
import { describeLaunchMode, launchModeOf, type LaunchEnvironment } from './launch-mode';

const at = (env: NodeJS.ProcessEnv, files: string[] = []): LaunchEnvironment => ({
  env,
  localKubeconfigPath: '.edict/kubeconfig',
  cwd: '/repo',
  home: '/home/me',
  exists: (path) => files.includes(path),
});

describe('launchModeOf', () => {
  it('is local by default, saying so', () => {
    const mode = launchModeOf('local', at({}));
    expect(mode).toEqual({ kind: 'local', reason: 'the default' });
    expect(describeLaunchMode(mode)).toBe('Mode: local (the default), an in-memory cluster.');
  });

  it('stays local with a KUBECONFIG exported in the shell, and names the KUBECONFIG it leaves alone', () => {
    const mode = launchModeOf('local', at({ KUBECONFIG: '/home/me/.kube/prod' }));
    expect(mode).toEqual({ kind: 'local', reason: 'the default', unused: 'KUBECONFIG=/home/me/.kube/prod' });
    expect(describeLaunchMode(mode)).toBe(
      'Mode: local (the default), an in-memory cluster. KUBECONFIG=/home/me/.kube/prod is not used: EDICT_MODE=cluster npm start runs against it.',
    );
    expect(
      describeLaunchMode(launchModeOf('local', at({ EDICT_MODE: 'local', KUBERNETES_SERVICE_HOST: '10.0.0.1' }))),
    ).toBe(
      "Mode: local (EDICT_MODE=local), an in-memory cluster. The pod's cluster (KUBERNETES_SERVICE_HOST=10.0.0.1) is not used: EDICT_MODE=cluster npm start runs against it.",
    );
  });

  it("notes nothing for a KUBECONFIG that is the local cluster's own file (left exported from an earlier run)", () => {
    expect(launchModeOf('local', at({ KUBECONFIG: '/repo/.edict/kubeconfig' }))).toEqual({
      kind: 'local',
      reason: 'the default',
    });
  });

  it('with EDICT_MODE=cluster, runs against the pod’s cluster first', () => {
    const mode = launchModeOf('cluster', at({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBECONFIG: '/k' }));
    expect(mode).toEqual({
      kind: 'cluster',
      source: 'in-cluster',
      description: 'in-cluster (KUBERNETES_SERVICE_HOST=10.0.0.1)',
      reason: 'EDICT_MODE=cluster',
    });
    expect(describeLaunchMode(mode)).toBe(
      'Mode: cluster (EDICT_MODE=cluster), against in-cluster (KUBERNETES_SERVICE_HOST=10.0.0.1).',
    );
  });

  it('with EDICT_MODE=cluster, runs against the KUBECONFIG, else ~/.kube/config as kubectl would', () => {
    expect(describeLaunchMode(launchModeOf('cluster', at({ KUBECONFIG: '/k' })))).toBe(
      'Mode: cluster (EDICT_MODE=cluster), against KUBECONFIG=/k.',
    );
    expect(launchModeOf('cluster', at({}, ['/home/me/.kube/config']))).toEqual({
      kind: 'cluster',
      source: 'kubeconfig',
      description: '/home/me/.kube/config',
      kubeconfigPath: '/home/me/.kube/config',
      reason: 'EDICT_MODE=cluster',
    });
  });

  it('with EDICT_MODE=cluster and no cluster anywhere, fails saying what to set', () => {
    expect(() => launchModeOf('cluster', at({}))).toThrow(
      'EDICT_MODE=cluster: no cluster configured (not in a pod, KUBECONFIG is not set, no ~/.kube/config); set KUBECONFIG, or leave EDICT_MODE unset for the local in-memory cluster',
    );
  });
});
