import { describe, expect, it } from 'vitest';
import { AddressPolicy, DEFAULT_BLOCKED_CIDRS } from '@edict/egress';
import { blockedCidrsAllowing, RegistryEgressError } from './registry-egress';

describe('blockedCidrsAllowing', () => {
  it('lets through only the named addresses, keeping the rest of each range blocked', () => {
    const policy = new AddressPolicy(blockedCidrsAllowing(DEFAULT_BLOCKED_CIDRS, ['127.0.0.1']));
    expect(policy.blockedRange('127.0.0.1')).toBeUndefined();
    expect(policy.blockedRange('::ffff:127.0.0.1')).toBeUndefined();
    for (const address of [
      '127.0.0.0',
      '127.0.0.2',
      '127.0.1.1',
      '127.255.255.255',
      '::1',
      '169.254.169.254',
      '0.0.0.0',
    ]) {
      expect(policy.blockedRange(address), address).toBeDefined();
    }
    expect(policy.blockedRange('10.0.0.1')).toBeUndefined();
  });

  it('carves several addresses, IPv6 included, and keeps ranges that hold none of them', () => {
    const list = blockedCidrsAllowing(
      ['127.0.0.0/8', '::1/128', '10.0.0.0/8', 'fe80::/10'],
      ['127.0.0.1', '127.0.0.9', '::1', 'fe80::1'],
    );
    const policy = new AddressPolicy(list);
    for (const address of ['127.0.0.1', '127.0.0.9', '::1', 'fe80::1'])
      expect(policy.blockedRange(address), address).toBeUndefined();
    for (const address of ['127.0.0.8', '127.0.0.10', 'fe80::2', '10.1.2.3'])
      expect(policy.blockedRange(address), address).toBeDefined();
    expect(list).toContain('10.0.0.0/8');
    expect(list).not.toContain('::1/128');
  });

  it('names an entry that is not an IP address', () => {
    expect(() => blockedCidrsAllowing(DEFAULT_BLOCKED_CIDRS, ['localhost'])).toThrow(RegistryEgressError);
    expect(() => blockedCidrsAllowing(DEFAULT_BLOCKED_CIDRS, ['127.0.0.1', 'localhost'])).toThrow(
      'registry allowed address 1 "localhost" is not an IP address',
    );
  });
});
