import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("Kubernetes' CEL IP and CIDR libraries", () => {
  it('parses addresses as Go does and prints them canonically', () => {
    expect(evaluateCel("string(ip('2001:0DB8:0:0:0:0:0:0001'))")).toBe('2001:db8::1');
    expect(evaluateCel("string(ip('1:0:0:2:0:0:0:3'))")).toBe('1:0:0:2::3');
    expect(evaluateCel("string(ip('::1.2.3.4'))")).toBe('::102:304');
    expect(
      evaluateCel("[isIP('192.168.01.1'), isIP('1.2.3'), isIP('1::2::3'), isIP('256.1.1.1'), isIP('::')]"),
    ).toEqual([false, false, false, false, true]);
    expect(evaluateCel("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')")).toBe(true);
    expect(celFailure("ip('::ffff:1.2.3.4')")).toContain('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    expect(celFailure("ip('fe80::1%eth0')")).toContain('with zone value is not allowed');
    expect(celFailure("ip('nope')")).toContain('IP Address "nope" parse error during conversion from string');
  });

  it('tells the family and class of an address', () => {
    expect(evaluateCel("[ip('10.0.0.1').family(), ip('::1').family()]")).toEqual([4n, 6n]);
    const checks = [
      "ip('0.0.0.0').isUnspecified()",
      "ip('::1').isLoopback()",
      "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()",
      "ip('ff02::1').isLinkLocalMulticast()",
      "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()",
      "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
      "ip('1.2.3.4') == ip('1.2.3.4') && ip('1.2.3.4') != ip('1.2.3.5')",
    ];
    for (const check of checks) expect(evaluateCel(check), check).toBe(true);
  });

  it('tests containment of addresses and networks of the same family', () => {
    expect(evaluateCel("cidr('192.168.0.0/24').containsIP('192.168.0.9')")).toBe(true);
    expect(evaluateCel("cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))")).toBe(false);
    expect(evaluateCel("cidr('::/0').containsIP('1.2.3.4')")).toBe(false);
    expect(evaluateCel("cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')")).toBe(true);
    expect(evaluateCel("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/16'))")).toBe(false);
  });

  it('keeps the address as written until masked', () => {
    expect(evaluateCel("string(cidr('192.168.0.1/24').ip())")).toBe('192.168.0.1');
    expect(evaluateCel("string(cidr('192.168.0.1/24').masked())")).toBe('192.168.0.0/24');
    expect(evaluateCel("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()")).toBe(false);
    expect(evaluateCel("cidr('2001:db8::/32').prefixLength()")).toBe(32n);
    expect(evaluateCel("[isCIDR('10.0.0.0/33'), isCIDR('10.0.0.0/08'), isCIDR('10.0.0.0'), isCIDR('::/128')]")).toEqual(
      [false, false, false, true],
    );
    expect(celFailure("cidr('10.0.0.0')")).toContain('network address parse error during conversion from string');
  });
});
