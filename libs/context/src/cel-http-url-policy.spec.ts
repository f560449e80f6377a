import { describe, expect, it } from 'vitest';
import { CelHttpUrlPolicy } from './cel-http-url-policy';

describe('CelHttpUrlPolicy', () => {
  it("refuses Kyverno's default metadata host names, whatever their case or final dot", () => {
    const policy = new CelHttpUrlPolicy();
    expect(policy.refusal('http://metadata.google.internal/computeMetadata/v1/')).toMatch(/on the blocklist/);
    expect(policy.refusal('http://METADATA.internal./x')).toMatch(/on the blocklist/);
    expect(policy.refusal('https://api.example.com/v1')).toBeUndefined();
  });

  it('refuses host names it is given', () => {
    const policy = new CelHttpUrlPolicy({ blockedHosts: ['json-server.test.svc.cluster.local'] });
    expect(policy.refusal('http://json-server.test.svc.cluster.local/x')).toMatch(/json-server.test.svc.cluster.local/);
  });

  it('with an allowlist, permits only matching scheme, host, port and path prefix at a segment boundary', () => {
    const policy = new CelHttpUrlPolicy({
      allowedUrlPrefixes: ['https://api.example.com/v1', 'http://svc.local:8080/'],
    });
    expect(policy.refusal('https://api.example.com/v1')).toBeUndefined();
    expect(policy.refusal('https://api.example.com:443/v1/items')).toBeUndefined();
    expect(policy.refusal('https://api.example.com/v10/items')).toBe('no matching allowlist entry');
    expect(policy.refusal('http://api.example.com/v1')).toBe('no matching allowlist entry');
    expect(policy.refusal('http://svc.local:8080/anything')).toBeUndefined();
    expect(policy.refusal('http://svc.local/anything')).toBe('no matching allowlist entry');
  });

  it('refuses an allowlist entry without scheme and host', () => {
    expect(() => new CelHttpUrlPolicy({ allowedUrlPrefixes: ['api.example.com'] })).toThrow(
      /invalid allowlist URL|scheme and host/,
    );
  });
});
