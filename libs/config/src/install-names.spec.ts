import { describe, expect, it } from 'vitest';
import { DEFAULT_INSTALL_NAME, installNameProblem, installNames, tlsSecretNames } from './install-names';

describe('installNames', () => {
  it('derives exactly the names of a Kyverno installation from `kyverno`', () => {
    // Kyverno's names as its code, Helm chart and documentation spell them.
    expect(installNames('kyverno')).toEqual({
      installName: 'kyverno',
      namespace: 'kyverno',
      configMap: 'kyverno',
      service: 'kyverno-svc',
      cleanupService: 'kyverno-cleanup-controller',
      admissionControllerDeployment: 'kyverno-admission-controller',
      leases: {
        admissionController: 'kyverno',
        backgroundController: 'kyverno-background-controller',
        reportsController: 'kyverno-reports-controller',
        cleanupController: 'kyverno-cleanup-controller',
      },
      webhookConfigurations: {
        cleanupValidating: 'kyverno-cleanup-validating-webhook-cfg',
        ttlValidating: 'kyverno-ttl-validating-webhook-cfg',
        resourceValidating: 'kyverno-resource-validating-webhook-cfg',
        resourceMutating: 'kyverno-resource-mutating-webhook-cfg',
        policyValidating: 'kyverno-policy-validating-webhook-cfg',
        exceptionValidating: 'kyverno-exception-validating-webhook-cfg',
        globalContextValidating: 'kyverno-global-context-validating-webhook-cfg',
      },
      webhooks: {
        validating: 'validate.kyverno.svc',
        mutating: 'mutate.kyverno.svc',
        policyValidating: 'validate-policy.kyverno.svc',
        exceptionValidating: 'kyverno-svc.kyverno.svc',
        globalContextValidating: 'kyverno-svc.kyverno.svc',
      },
      webhookManagedBy: { key: 'webhook.kyverno.io/managed-by', value: 'kyverno' },
      heartbeatAnnotation: 'kyverno.io/last-request-time',
      tlsSecrets: { ca: 'kyverno-svc.kyverno.svc.kyverno-tls-ca', pair: 'kyverno-svc.kyverno.svc.kyverno-tls-pair' },
      certManagedBy: { key: 'cert.kyverno.io/managed-by', value: 'kyverno' },
    });
  });

  it('keeps the default install `edict` on the names it had, the Lease and exception webhook included', () => {
    expect(DEFAULT_INSTALL_NAME).toBe('edict');
    expect(installNames()).toEqual({
      installName: 'edict',
      namespace: 'edict',
      configMap: 'edict',
      service: 'edict-svc',
      cleanupService: 'edict-cleanup-controller',
      admissionControllerDeployment: 'edict-admission-controller',
      leases: {
        admissionController: 'edict-admission-controller',
        backgroundController: 'edict-background-controller',
        reportsController: 'edict-reports-controller',
        cleanupController: 'edict-cleanup-controller',
      },
      webhookConfigurations: {
        cleanupValidating: 'edict-cleanup-validating-webhook-cfg',
        ttlValidating: 'edict-ttl-validating-webhook-cfg',
        resourceValidating: 'edict-resource-validating-webhook-cfg',
        resourceMutating: 'edict-resource-mutating-webhook-cfg',
        policyValidating: 'edict-policy-validating-webhook-cfg',
        exceptionValidating: 'edict-exception-validating-webhook-cfg',
        globalContextValidating: 'edict-global-context-validating-webhook-cfg',
      },
      webhooks: {
        validating: 'validate.edict.svc',
        mutating: 'mutate.edict.svc',
        policyValidating: 'validate-policy.edict.svc',
        exceptionValidating: 'validate-policyexception.edict.svc',
        globalContextValidating: 'edict-svc.edict.svc',
      },
      webhookManagedBy: { key: 'webhook.edict.io/managed-by', value: 'edict' },
      heartbeatAnnotation: 'edict.io/last-request-time',
      tlsSecrets: { ca: 'edict-svc.edict.svc.kyverno-tls-ca', pair: 'edict-svc.edict.svc.kyverno-tls-pair' },
      certManagedBy: { key: 'cert.edict.io/managed-by', value: 'edict' },
    });
  });

  it('follows Kyverno’s scheme for any other name', () => {
    const names = installNames('policy');
    expect(names.leases.admissionController).toBe('policy');
    expect(names.webhooks.exceptionValidating).toBe('policy-svc.policy.svc');
    expect(names.tlsSecrets).toEqual(tlsSecretNames('policy-svc', 'policy'));
    expect(names.webhookConfigurations.resourceMutating).toBe('policy-resource-mutating-webhook-cfg');
  });

  it('refuses names that are not DNS labels, or too long for `<name>-svc`', () => {
    for (const bad of ['', 'Kyverno', 'my_install', '-edict', 'edict-', 'a.b', 'x'.repeat(60)]) {
      expect(installNameProblem(bad), bad).toBeDefined();
      expect(() => installNames(bad)).toThrow(/^install name must /);
    }
    expect(installNameProblem('x'.repeat(59))).toBeUndefined();
    expect(`${'x'.repeat(59)}-svc`).toHaveLength(63);
  });
});
