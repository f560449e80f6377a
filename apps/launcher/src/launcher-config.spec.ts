import { describe, expect, it } from 'vitest';
import { launcherApiServerSettings, loadLauncherConfig } from './launcher-config';
import { admissionPolicyVersions } from '@edict/apiserver';

describe('loadLauncherConfig', () => {
  it('has the documented defaults', () => {
    expect({ ...loadLauncherConfig({}) }).toEqual({
      mode: 'local',
      apiPort: 6443,
      kubeconfigPath: '.edict/kubeconfig',
      examplesDir: 'examples',
      kubernetesVersion: '',
      runtimeConfig: '',
      featureGates: '',
      loggingFormat: 'text',
      verbosity: 2,
    });
    expect(launcherApiServerSettings(loadLauncherConfig({}))).toEqual({});
  });

  it('reads the environment', () => {
    const config = loadLauncherConfig({
      EDICT_MODE: 'cluster',
      EDICT_API_PORT: '7443',
      EDICT_KUBECONFIG: '/tmp/k',
      EDICT_EXAMPLES: 'mine',
    });
    expect({ ...config }).toMatchObject({
      mode: 'cluster',
      apiPort: 7443,
      kubeconfigPath: '/tmp/k',
      examplesDir: 'mine',
    });
    expect(loadLauncherConfig({ EDICT_LOGGING_FORMAT: 'json', EDICT_VERBOSITY: '4' })).toMatchObject({
      loggingFormat: 'json',
      verbosity: 4,
    });
    expect(() => loadLauncherConfig({ EDICT_LOGGING_FORMAT: 'xml' })).toThrow('EDICT_LOGGING_FORMAT');
  });

  it("sets the API server's Kubernetes version, runtime config and feature gates, which decide the admission policy versions served", () => {
    // What Kyverno's CI kind config vap-v1beta1.yaml sets on Kubernetes 1.34.
    const config = loadLauncherConfig({
      EDICT_KUBERNETES_VERSION: '1.34',
      EDICT_RUNTIME_CONFIG: 'admissionregistration.k8s.io/v1alpha1=true, admissionregistration.k8s.io/v1beta1',
      EDICT_FEATURE_GATES: 'MutatingAdmissionPolicy=true',
    });
    const settings = launcherApiServerSettings(config);
    expect(settings).toEqual({
      kubernetesVersion: '1.34',
      runtimeConfig: { 'admissionregistration.k8s.io/v1alpha1': true, 'admissionregistration.k8s.io/v1beta1': true },
      featureGates: { MutatingAdmissionPolicy: true },
    });
    expect(admissionPolicyVersions(settings)).toEqual({
      validating: ['v1', 'v1beta1', 'v1alpha1'],
      mutating: ['v1beta1', 'v1alpha1'],
    });
    // Without them, 1.34 serves no MutatingAdmissionPolicy (the gate is off before 1.36).
    expect(
      admissionPolicyVersions(launcherApiServerSettings(loadLauncherConfig({ EDICT_KUBERNETES_VERSION: '1.34' }))),
    ).toEqual({ validating: ['v1'], mutating: [] });
  });

  it('names the variable of a bad API server setting', () => {
    expect(() => loadLauncherConfig({ EDICT_KUBERNETES_VERSION: '2.1' })).toThrow(
      'invalid launcher configuration: EDICT_KUBERNETES_VERSION: "2.1" is not a Kubernetes 1.x version',
    );
    expect(() => loadLauncherConfig({ EDICT_RUNTIME_CONFIG: 'admissionregistration.k8s.io/v1beta1=yes' })).toThrow(
      'invalid launcher configuration: EDICT_RUNTIME_CONFIG: "admissionregistration.k8s.io/v1beta1=yes" is not name=true or name=false',
    );
    expect(() => loadLauncherConfig({ EDICT_FEATURE_GATES: 'MutatingAdmissionPolicy' })).toThrow(
      'invalid launcher configuration: EDICT_FEATURE_GATES: "MutatingAdmissionPolicy" is not name=true or name=false',
    );
    expect(() =>
      loadLauncherConfig({ EDICT_FEATURE_GATES: Array.from({ length: 65 }, (_, i) => `G${i}=true`).join(',') }),
    ).toThrow('invalid launcher configuration: EDICT_FEATURE_GATES: at most 64 entries');
  });

  it('names the variable of a bad value', () => {
    expect(() => loadLauncherConfig({ EDICT_API_PORT: 'high' })).toThrow(
      'invalid launcher configuration: EDICT_API_PORT: must be a whole number, got "high"',
    );
    expect(() => loadLauncherConfig({ EDICT_API_PORT: '70000' })).toThrow(
      'invalid launcher configuration: EDICT_API_PORT: apiPort must not be greater than 65535',
    );
    expect(() => loadLauncherConfig({ EDICT_MODE: 'kubeconfig' })).toThrow(
      'invalid launcher configuration: EDICT_MODE: mode must be local or cluster',
    );
  });
});
