import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("Kubernetes' CEL URL library", () => {
  it('reads URLs as Go does, without normalizing them', () => {
    expect(evaluateCel("url('https://example.com:443/a/../b').getPort()")).toBe('443');
    expect(evaluateCel("url('https://example.com:443/a/../b').getEscapedPath()")).toBe('/a/../b');
    expect(evaluateCel("url('HTTPS://Example.COM/x').getScheme() + ' ' + url('HTTPS://Example.COM/x').getHost()")).toBe(
      'https Example.COM',
    );
    expect(evaluateCel("url('https://user@[::1]:80/p').getHost()")).toBe('[::1]:80');
    expect(evaluateCel("url('https://[::1]:80/').getHostname()")).toBe('::1');
    expect(evaluateCel("url('/a/%2F').getEscapedPath()")).toBe('/a/%2F');
    // A path written with a character that needs escaping is escaped whole from its decoded form.
    expect(evaluateCel("url('/a b/%2F').getEscapedPath()")).toBe('/a%20b//');
    expect(evaluateCel("url('https://a/p?x=1&y=a+b&x=%20&bad=%zz#frag').getQuery()")).toEqual({
      x: ['1', ' '],
      y: ['a b'],
    });
    expect(evaluateCel("url('mailto:someone@example.com').getScheme()")).toBe('mailto');
  });

  it('accepts absolute URIs and absolute paths only, with Go messages', () => {
    expect(
      evaluateCel("[isURL('https://x'), isURL('/p'), isURL('p'), isURL('https://ex ample.com'), isURL('')]"),
    ).toEqual([true, true, false, false, false]);
    expect(celFailure("url('relative')")).toContain(
      'URL parse error during conversion from string: parse "relative": invalid URI for request',
    );
    expect(celFailure("url('https://host:port/')")).toContain('invalid port ":port" after host');
  });
});

describe("Kubernetes' CEL quantity library", () => {
  it('compares, adds and multiplies by value', () => {
    expect(evaluateCel("quantity('1') == quantity('1000m') && quantity('1') != quantity('2')")).toBe(true);
    expect(evaluateCel("quantity('200M').compareTo(quantity('0.2G'))")).toBe(0n);
    expect(evaluateCel("quantity('50Mi').isGreaterThan(quantity('50M'))")).toBe(true);
    expect(evaluateCel("quantity('1.5').mul(4).asInteger()")).toBe(6n);
    expect(evaluateCel("quantity('1').sub(2).sign()")).toBe(-1n);
    expect(evaluateCel("quantity('1.5').isInteger()")).toBe(false);
    expect(celFailure("quantity('1.5').asInteger()")).toContain('cannot convert value to integer');
  });
});
