import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('path_canonicalize', () => {
  it('cleans like Go filepath.Join', () => {
    expect(jp("path_canonicalize('/var//lib/../run/./x/')")).toBe('/var/run/x');
    expect(jp("path_canonicalize('//etc')")).toBe('/etc');
    expect(jp("path_canonicalize('/../..')")).toBe('/');
    expect(jp("path_canonicalize('a/../../b')")).toBe('../b');
    expect(jp("path_canonicalize('./')")).toBe('.');
    expect(jp("path_canonicalize('')")).toBe('');
    expect(() => jp('path_canonicalize(`1`)')).toThrow(/type/);
  });
});

describe('semver_compare', () => {
  it('checks a version against a blang/semver range', () => {
    expect(jp("semver_compare('1.2.3', '>1.0.0')")).toBe(true);
    expect(jp("semver_compare('1.2.3', '>=1.0.0 <1.2.0')")).toBe(false);
    expect(jp("semver_compare('2.5.0', '<1.0.0 || >=2.0.0')")).toBe(true);
    expect(jp("semver_compare('1.2.3', '1.2.3')")).toBe(true);
    expect(jp("semver_compare('1.2.3', '!=1.2.3')")).toBe(false);
    expect(jp("semver_compare('1.2.3', '>= 1.2.0')")).toBe(true);
    expect(jp("semver_compare('1.0.0-alpha', '<1.0.0')")).toBe(true);
    expect(jp("semver_compare('1.0.0-alpha.1', '>1.0.0-alpha')")).toBe(true);
    expect(jp("semver_compare('1.0.0+build', '=1.0.0')")).toBe(true);
  });

  it('expands x wildcards', () => {
    expect(jp("semver_compare('1.4.0', '1.x')")).toBe(true);
    expect(jp("semver_compare('2.0.0', '1.x')")).toBe(false);
    expect(jp("semver_compare('1.2.9', '1.2.x')")).toBe(true);
    expect(jp("semver_compare('1.3.0', '>1.2.x')")).toBe(true);
    expect(jp("semver_compare('1.2.5', '>1.2.x')")).toBe(false);
  });

  it('treats an unparsable version as 0.0.0 and rejects bad ranges', () => {
    expect(jp("semver_compare('v1.2.3', '<0.0.1')")).toBe(true);
    expect(jp("semver_compare('1.2', '=0.0.0')")).toBe(true);
    expect(() => jp("semver_compare('1.2.3', '>abc')")).toThrow('Could not get version from string: ">abc"');
    expect(() => jp("semver_compare('1.2.3', '~>1.2.3')")).toThrow(/Could not parse comparator/);
    expect(() => jp("semver_compare('1.2.3', '>01.2.3')")).toThrow(/leading zeroes/);
    expect(() => jp("semver_compare('1.2.3', '|| 1.2.3')")).toThrow("First element in range is '||'");
  });
});

describe('image_normalize', () => {
  it('adds docker.io, library/ and :latest like Kyverno', () => {
    expect(jp("image_normalize('nginx')")).toBe('docker.io/library/nginx:latest');
    expect(jp("image_normalize('nginx:1.25')")).toBe('docker.io/library/nginx:1.25');
    expect(jp("image_normalize('bitnami/redis')")).toBe('docker.io/bitnami/redis:latest');
    expect(jp("image_normalize('ghcr.io/org/app:v1')")).toBe('ghcr.io/org/app:v1');
    expect(jp("image_normalize('ghcr.io/app')")).toBe('ghcr.io/library/app:latest');
    expect(jp("image_normalize('localhost:5000/app:dev')")).toBe('localhost:5000/library/app:dev');
    const digest = 'sha256:' + 'a'.repeat(64);
    expect(jp(`image_normalize('nginx@${digest}')`)).toBe(`docker.io/library/nginx@${digest}`);
    expect(jp(`image_normalize('nginx:1@${digest}')`)).toBe(`docker.io/library/nginx@${digest}`);
  });

  it('rejects invalid references with Kyverno’s message', () => {
    expect(() => jp("image_normalize('Nginx')")).toThrow(
      "JMESPath function 'image_normalize': bad image: docker.io/Nginx, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format: repository name (Nginx) must be lowercase",
    );
    expect(() => jp("image_normalize('nginx:')")).toThrow(/invalid reference format/);
    expect(() => jp("image_normalize('nginx@sha256:abc')")).toThrow(/invalid reference format/);
    expect(() => jp("image_normalize('')")).toThrow(/bad image/);
  });
});

describe('random', () => {
  it('generates strings matching the pattern', () => {
    for (const pattern of [
      '[a-z0-9]{6}',
      '[A-Z][a-z]{3,5}-\\d{2}',
      '(foo|bar)_[0-9a-f]+',
      'x?y*z',
      '[^a-z]{4}',
      '\\w{8}',
    ]) {
      const value = jp(`random('${pattern}')`) as string;
      expect(value).toMatch(new RegExp(`^(?:${pattern})$`));
    }
  });

  it('rejects empty and invalid patterns', () => {
    expect(() => jp("random('')")).toThrow('no pattern provided');
    expect(() => jp("random('[a-')")).toThrow(/error parsing regexp/);
  });

  it("caps repeat counts as Go's parser does, at once", () => {
    expect(() => jp("random('a{100000000}')")).toThrow('error parsing regexp: invalid repeat count: `{100000000}`');
    expect(() => jp("random('(a{100}){100}')")).toThrow('error parsing regexp: invalid repeat count: `{100}`');
    expect((jp("random('a{1000}')") as string).length).toBe(1000);
  });

  it('refuses patterns that could generate more than it allows', () => {
    // Each repeat is valid for Go; together they ask for 10^9 characters.
    expect(() => jp("random('(((a{10}){10}){10}){10}')")).toThrow(/invalid repeat count/);
    expect(() => jp("random('((((((a*)*)*)*)*)*){900}')")).toThrow(
      /pattern can generate strings of up to \d+ characters, more than the 65536 random\(\) allows/,
    );
  });
});

describe('is_external_url', () => {
  it('is false for loopback and private addresses', () => {
    expect(jp("is_external_url('http://127.0.0.1:8080/x')")).toBe(false);
    expect(jp("is_external_url('https://10.1.2.3')")).toBe(false);
    expect(jp("is_external_url('https://172.20.0.1')")).toBe(false);
    expect(jp("is_external_url('https://192.168.1.1')")).toBe(false);
    expect(jp("is_external_url('http://[::1]/')")).toBe(false);
    expect(jp("is_external_url('http://localhost/')")).toBe(false);
  });

  it('is true for public addresses and (without DNS) other names', () => {
    expect(jp("is_external_url('https://8.8.8.8')")).toBe(true);
    expect(jp("is_external_url('https://172.32.0.1')")).toBe(true);
    expect(jp("is_external_url('https://example.com/path')")).toBe(true);
    expect(() => jp("is_external_url('not a url')")).toThrow('lookup : no such host');
  });
});
