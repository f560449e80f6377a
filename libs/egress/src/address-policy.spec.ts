import { describe, expect, it } from 'vitest';
import { AddressPolicy, DEFAULT_BLOCKED_CIDRS, EgressConfigError } from './address-policy';

describe('AddressPolicy', () => {
  const defaults = new AddressPolicy();

  it.each([
    ['169.254.169.254', '169.254.0.0/16'],
    ['100.100.100.200', '100.100.100.200/32'],
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.1.2.3', '127.0.0.0/8'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['::1', '::1/128'],
    ['::', '::/128'],
    ['fe80::1', 'fe80::/10'],
    ['fe80::1%eth0', 'fe80::/10'],
    ['FD00:EC2::254', 'fd00:ec2::254/128'],
  ])('refuses %s by default (in %s)', (address, range) => {
    expect(defaults.blockedRange(address)).toBe(range);
  });

  it.each([
    ['::ffff:169.254.169.254', '169.254.0.0/16'],
    ['::ffff:a9fe:a9fe', '169.254.0.0/16'],
    ['::ffff:127.0.0.1', '127.0.0.0/8'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.0/8'],
    ['64:ff9b::169.254.169.254', '169.254.0.0/16'],
    ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
  ])('refuses the IPv6 form %s of a blocked IPv4 address', (address, range) => {
    expect(defaults.blockedRange(address)).toBe(range);
  });

  it.each(['10.0.0.1', '8.8.8.8', '169.253.255.255', '169.255.0.0', '2001:db8::1', 'fd00:ec2::253', '::ffff:8.8.8.8'])(
    'allows %s by default',
    (address) => {
      expect(defaults.blockedRange(address)).toBeUndefined();
    },
  );

  it('fails closed on something that is not an IP address', () => {
    expect(defaults.blockedRange('metadata.google.internal')).toBe('not an IP address');
  });

  it('takes its own list, bare addresses included, and matches mapped forms against IPv4 entries', () => {
    const policy = new AddressPolicy(['10.0.0.0/8', '192.0.2.7', '2001:DB8::/32']);
    expect(policy.blockedCidrs).toEqual(['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32']);
    expect(policy.blockedRange('10.200.1.1')).toBe('10.0.0.0/8');
    expect(policy.blockedRange('::ffff:10.1.1.1')).toBe('10.0.0.0/8');
    expect(policy.blockedRange('192.0.2.7')).toBe('192.0.2.7/32');
    expect(policy.blockedRange('192.0.2.8')).toBeUndefined();
    expect(policy.blockedRange('2001:db8:1::5')).toBe('2001:db8::/32');
    expect(policy.blockedRange('127.0.0.1')).toBeUndefined();
  });

  it('an empty list blocks nothing', () => {
    expect(new AddressPolicy([]).blockedRange('169.254.169.254')).toBeUndefined();
  });

  it('names every bad entry', () => {
    const build = () => new AddressPolicy(['10.0.0.0/33', '127.0.0.1/8', 'fe80::/129', 'example.com/8', '1.2.3.4/x']);
    expect(build).toThrow(EgressConfigError);
    expect(build).toThrow(
      'invalid egress block list: entry 0 "10.0.0.0/33": the prefix length must be 0-32 for IPv4; ' +
        'entry 2 "fe80::/129": the prefix length must be 0-128 for IPv6; ' +
        'entry 3 "example.com/8": not an IPv4 or IPv6 address; ' +
        'entry 4 "1.2.3.4/x": the prefix length must be a number',
    );
  });

  it('exports a frozen default list', () => {
    expect(Object.isFrozen(DEFAULT_BLOCKED_CIDRS)).toBe(true);
    expect(new AddressPolicy(DEFAULT_BLOCKED_CIDRS).blockedCidrs).toEqual(DEFAULT_BLOCKED_CIDRS);
  });
});
