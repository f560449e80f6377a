import { describe, expect, it } from 'vitest';
import { WEBHOOK_MONITOR_INTERVAL_MS } from '@edict/webhook-config';
import { ControllerConfigError } from '@edict/controller-runtime';
import { loadControllerConfig } from './controller-config';

describe('loadControllerConfig', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadControllerConfig({});
    expect(config).toMatchObject({
      namespace: 'edict',
      serviceName: 'edict-svc',
      port: 9443,
      maxBodyBytes: 10 * 1024 * 1024,
      exceptionNamespaces: [],
      forceFailurePolicyIgnore: false,
    });
  });

  it('reads the environment: numbers, comma lists, strings', () => {
    const config = loadControllerConfig({
      POD_NAMESPACE: 'kyverno',
      EDICT_WEBHOOK_PORT: '8443',
      EDICT_CERT_IP_ADDRESSES: '127.0.0.1, ::1',
      EDICT_EXCEPTION_NAMESPACES: 'policies,team-*',
      EDICT_FORCE_FAILURE_POLICY_IGNORE: 'true',
      KUBECONFIG: '/tmp/kubeconfig',
    });
    expect(config).toMatchObject({
      forceFailurePolicyIgnore: true,
      namespace: 'kyverno',
      port: 8443,
      ipAddresses: ['127.0.0.1', '::1'],
      exceptionNamespaces: ['policies', 'team-*'],
      kubeconfigPath: '/tmp/kubeconfig',
    });
  });

  it('configures the webhook controller: the monitor every 30 s, the Service port, the 10 s timeout', () => {
    const config = loadControllerConfig({});
    expect(config.webhookMonitorIntervalMs).toBe(30_000);
    expect(config.webhookMonitorIntervalMs).toBe(WEBHOOK_MONITOR_INTERVAL_MS);
    expect(config).toMatchObject({ webhookServicePort: 443, webhookTimeoutSeconds: 10 });
    expect(config.webhookUrl).toBeUndefined();
    expect(config.deploymentName).toBeUndefined();
    expect(config.leaseIdentity).toBeUndefined();
  });

  it('reads the webhook controller variables', () => {
    const config = loadControllerConfig({
      EDICT_WEBHOOK_URL: 'https://127.0.0.1:9443',
      EDICT_WEBHOOK_SERVICE_PORT: '8443',
      EDICT_WEBHOOK_TIMEOUT_SECONDS: '15',
      EDICT_DEPLOYMENT_NAME: 'edict-admission-controller',
      EDICT_WEBHOOK_MONITOR_INTERVAL_MS: '1000',
      EDICT_LEASE_IDENTITY: 'replica-a',
    });
    expect(config).toMatchObject({
      webhookUrl: 'https://127.0.0.1:9443',
      webhookServicePort: 8443,
      webhookTimeoutSeconds: 15,
      deploymentName: 'edict-admission-controller',
      webhookMonitorIntervalMs: 1000,
      leaseIdentity: 'replica-a',
    });
  });

  it('refuses a webhook URL that is not https, and timeouts over the API server limit', () => {
    expect(() => loadControllerConfig({ EDICT_WEBHOOK_URL: 'http://127.0.0.1:9443' })).toThrow(
      'webhookUrl (EDICT_WEBHOOK_URL): webhookUrl must be an https:// URL',
    );
    expect(() => loadControllerConfig({ EDICT_WEBHOOK_TIMEOUT_SECONDS: '31' })).toThrow(
      /webhookTimeoutSeconds \(EDICT_WEBHOOK_TIMEOUT_SECONDS\)/,
    );
    expect(() => loadControllerConfig({}, { webhookMonitorIntervalMs: 10 })).toThrow(/webhookMonitorIntervalMs/);
  });

  it("reads the TLS key algorithm in Edict's and in Kyverno's chart spelling", () => {
    expect(loadControllerConfig({}).tlsKeyAlgorithm).toBe('ECDSA-P256');
    expect(loadControllerConfig({ EDICT_TLS_KEY_ALGORITHM: 'Ed25519' }).tlsKeyAlgorithm).toBe('Ed25519');
    expect(loadControllerConfig({ EDICT_TLS_KEY_ALGORITHM: 'RSA' }).tlsKeyAlgorithm).toBe('RSA-2048');
    expect(loadControllerConfig({ EDICT_TLS_KEY_ALGORITHM: 'ECDSA' }).tlsKeyAlgorithm).toBe('ECDSA-P256');
    expect(() => loadControllerConfig({ EDICT_TLS_KEY_ALGORITHM: 'DSA' })).toThrow(
      /tlsKeyAlgorithm \(EDICT_TLS_KEY_ALGORITHM\): tlsKeyAlgorithm must be one of/,
    );
  });

  it("keeps today's certificate timing by default: CA 1 year, serving certificate 150 days, renewal 15 days before, 5 min propagation", () => {
    const day = 24 * 60 * 60 * 1000;
    expect(loadControllerConfig({})).toMatchObject({
      caValidityMs: 365 * day,
      tlsValidityMs: 150 * day,
      renewBeforeMs: 15 * day,
      caPropagationMs: 5 * 60 * 1000,
    });
  });

  it('reads the certificate timing variables, compressed lifetimes included', () => {
    expect(
      loadControllerConfig({
        EDICT_CA_VALIDITY_MS: '90000',
        EDICT_TLS_VALIDITY_MS: '36000',
        EDICT_RENEW_BEFORE_MS: '18000',
        EDICT_CA_PROPAGATION_MS: '6000',
        EDICT_CERT_CHECK_INTERVAL_MS: '1000',
      }),
    ).toMatchObject({
      caValidityMs: 90_000,
      tlsValidityMs: 36_000,
      renewBeforeMs: 18_000,
      caPropagationMs: 6_000,
      certCheckIntervalMs: 1_000,
    });
  });

  it('refuses certificate timing that does not fit together, naming the field and its variable', () => {
    // Fine on their own, but the default renewal margin (15 days) exceeds a 10-day certificate.
    expect(() => loadControllerConfig({ EDICT_TLS_VALIDITY_MS: String(10 * 24 * 60 * 60 * 1000) })).toThrow(
      /renewBeforeMs \(EDICT_RENEW_BEFORE_MS\): renewBeforeMs must be less than tlsValidityMs \(1296000000 >= 864000000\)/,
    );
    expect(() => loadControllerConfig({ EDICT_CA_VALIDITY_MS: '90000', EDICT_TLS_VALIDITY_MS: '120000' })).toThrow(
      /tlsValidityMs \(EDICT_TLS_VALIDITY_MS\): tlsValidityMs must not exceed caValidityMs \(120000 > 90000\)/,
    );
    expect(() =>
      loadControllerConfig({
        EDICT_CA_VALIDITY_MS: '90000',
        EDICT_TLS_VALIDITY_MS: '36000',
        EDICT_RENEW_BEFORE_MS: '18000',
        EDICT_CA_PROPAGATION_MS: '6000',
        EDICT_CERT_CHECK_INTERVAL_MS: '6000',
      }),
    ).toThrow(
      /renewBeforeMs \(EDICT_RENEW_BEFORE_MS\): renewBeforeMs must exceed caPropagationMs \+ 2 x certCheckIntervalMs/,
    );
    expect(() => loadControllerConfig({ EDICT_CA_VALIDITY_MS: '500' })).toThrow(
      /caValidityMs \(EDICT_CA_VALIDITY_MS\): caValidityMs must not be less than 1000/,
    );
    expect(() => loadControllerConfig({ EDICT_CA_PROPAGATION_MS: '-5' })).toThrow(
      'EDICT_CA_PROPAGATION_MS: must be a whole number, got "-5"',
    );
  });

  it('reads the review workers as a count or auto, in-process by default', () => {
    expect(loadControllerConfig({}).webhookWorkers).toBe('0');
    expect(loadControllerConfig({ EDICT_WEBHOOK_WORKERS: 'auto' }).webhookWorkers).toBe('auto');
    expect(loadControllerConfig({ EDICT_WEBHOOK_WORKERS: '4' }).webhookWorkers).toBe('4');
    for (const bad of ['65', '-1', 'all', '2.5'])
      expect(() => loadControllerConfig({ EDICT_WEBHOOK_WORKERS: bad })).toThrow(
        /EDICT_WEBHOOK_WORKERS|webhookWorkers/,
      );
  });

  it('lets overrides win over the environment', () => {
    expect(loadControllerConfig({ EDICT_WEBHOOK_PORT: '8443' }, { port: 0 }).port).toBe(0);
  });

  it('names every bad field with its variable', () => {
    let error: unknown;
    try {
      loadControllerConfig({
        EDICT_WEBHOOK_PORT: 'https',
        POD_NAMESPACE: 'Not_A_Label',
        EDICT_CERT_IP_ADDRESSES: 'localhost',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ControllerConfigError);
    const message = (error as Error).message;
    expect(message).toContain('EDICT_WEBHOOK_PORT: must be a whole number, got "https"');
    expect(message).toContain('namespace (POD_NAMESPACE): namespace must be a DNS label');
    expect(message).toContain('ipAddresses (EDICT_CERT_IP_ADDRESSES): ipAddresses must hold IP addresses');
  });

  it('refuses out-of-range numbers', () => {
    expect(() => loadControllerConfig({}, { port: 70000 })).toThrow(/port/);
    expect(() => loadControllerConfig({}, { maxInFlight: 0 })).toThrow(/maxInFlight/);
  });

  it('bounds context apiCalls: 10 s, 2,000,000 bytes, loopback and metadata addresses blocked by default', () => {
    const config = loadControllerConfig({});
    expect(config).toMatchObject({ apiCallTimeoutMs: 10_000, maxApiCallResponseBytes: 2_000_000 });
    expect(config.egressBlockedCidrs).toEqual(expect.arrayContaining(['127.0.0.0/8', '::1/128', '169.254.0.0/16']));
  });

  it("reads the reports controller's username, unset by default (its permissions are then not asked about)", () => {
    expect(loadControllerConfig({}).reportsUsername).toBeUndefined();
    const user = 'system:serviceaccount:edict:edict-reports-controller';
    expect(loadControllerConfig({ EDICT_REPORTS_USERNAME: user }).reportsUsername).toBe(user);
  });

  it('reads the egress block list, where none means no block list', () => {
    expect(loadControllerConfig({ EDICT_EGRESS_BLOCKED_CIDRS: '10.0.0.0/8, 192.168.1.1' }).egressBlockedCidrs).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
    ]);
    expect(loadControllerConfig({ EDICT_EGRESS_BLOCKED_CIDRS: 'none' }).egressBlockedCidrs).toEqual([]);
  });

  it('refuses a bad block list entry naming it and the variable', () => {
    expect(() => loadControllerConfig({ EDICT_EGRESS_BLOCKED_CIDRS: '10.0.0.0/8,10.0.0.0/40' })).toThrow(
      /egressBlockedCidrs \(EDICT_EGRESS_BLOCKED_CIDRS\): invalid egress block list: entry 1 "10.0.0.0\/40"/,
    );
    expect(() => loadControllerConfig({ EDICT_API_CALL_TIMEOUT_MS: '5' })).toThrow(/EDICT_API_CALL_TIMEOUT_MS/);
  });

  it('derives the name defaults from the install name, `edict` by default', () => {
    expect(loadControllerConfig({})).toMatchObject({
      installName: 'edict',
      namespace: 'edict',
      serviceName: 'edict-svc',
      configMapName: 'edict',
      leaseName: 'edict-admission-controller',
    });
    expect(loadControllerConfig({ EDICT_INSTALL_NAME: 'kyverno' })).toMatchObject({
      installName: 'kyverno',
      namespace: 'kyverno',
      serviceName: 'kyverno-svc',
      configMapName: 'kyverno',
      leaseName: 'kyverno',
    });
    expect(loadControllerConfig({}, { installName: 'kyverno' }).serviceName).toBe('kyverno-svc');
  });

  it('lets the variable or override of a name win over the install name', () => {
    const config = loadControllerConfig(
      { EDICT_INSTALL_NAME: 'kyverno', POD_NAMESPACE: 'policy', EDICT_LEASE_NAME: 'my-lease' },
      { configMapName: 'settings' },
    );
    expect(config).toMatchObject({
      namespace: 'policy',
      serviceName: 'kyverno-svc',
      configMapName: 'settings',
      leaseName: 'my-lease',
    });
  });

  it('refuses an install name that is not a DNS label, naming the variable', () => {
    expect(() => loadControllerConfig({ EDICT_INSTALL_NAME: 'Kyverno_Prod' })).toThrow(
      'installName (EDICT_INSTALL_NAME): install name must be a DNS label (lower-case letters, digits and \'-\'), got "Kyverno_Prod"',
    );
    expect(() => loadControllerConfig({ EDICT_INSTALL_NAME: 'x'.repeat(60) })).toThrow(
      /installName \(EDICT_INSTALL_NAME\): install name must be at most 59 characters/,
    );
    // Only the install name is wrong: the derived names are not reported as well.
    expect(() => loadControllerConfig({ EDICT_INSTALL_NAME: 'a.b' })).toThrow(
      /^invalid admission controller configuration: installName \(EDICT_INSTALL_NAME\): [^;]*$/,
    );
  });
});
