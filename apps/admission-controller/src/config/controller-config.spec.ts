import { describe, expect, it } from 'vitest';
import { ControllerConfigError, loadControllerConfig } from './controller-config';

describe('loadControllerConfig', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadControllerConfig({});
    expect(config).toMatchObject({
      namespace: 'edict',
      serviceName: 'edict-svc',
      port: 9443,
      maxBodyBytes: 10 * 1024 * 1024,
      exceptionNamespaces: [],
    });
  });

  it('reads the environment: numbers, comma lists, strings', () => {
    const config = loadControllerConfig({
      POD_NAMESPACE: 'kyverno',
      EDICT_WEBHOOK_PORT: '8443',
      EDICT_CERT_IP_ADDRESSES: '127.0.0.1, ::1',
      EDICT_EXCEPTION_NAMESPACES: 'policies,team-*',
      KUBECONFIG: '/tmp/kubeconfig',
    });
    expect(config).toMatchObject({
      namespace: 'kyverno',
      port: 8443,
      ipAddresses: ['127.0.0.1', '::1'],
      exceptionNamespaces: ['policies', 'team-*'],
      kubeconfigPath: '/tmp/kubeconfig',
    });
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
});
