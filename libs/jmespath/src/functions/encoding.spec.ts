import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('encoding functions', () => {
  it('base64_encode / base64_decode round trip UTF-8 text', () => {
    expect(jp("base64_encode('hello wörld')")).toBe('aGVsbG8gd8O2cmxk');
    expect(jp("base64_decode('aGVsbG8gd8O2cmxk')")).toBe('hello wörld');
    expect(jp("base64_encode('')")).toBe('');
    expect(jp("base64_decode('')")).toBe('');
  });

  it('base64_decode: standard padded alphabet, newlines ignored, offsets in errors', () => {
    expect(jp("base64_decode('YWJj\nZGVm')")).toBe('abcdef');
    expect(jp("base64_decode('YQ==')")).toBe('a');
    expect(() => jp("base64_decode('YQ')")).toThrow('illegal base64 data at input byte 0');
    expect(() => jp("base64_decode('YW*j')")).toThrow('illegal base64 data at input byte 2');
    expect(() => jp("base64_decode('YQ==YQ==')")).toThrow('illegal base64 data at input byte 4');
    expect(() => jp("base64_decode('_-8=')")).toThrow('illegal base64 data at input byte 0'); // URL alphabet
    expect(() => jp('base64_decode(`1`)')).toThrow(/type/);
  });

  it('sha256 / md5: lowercase hex digests of the UTF-8 text', () => {
    expect(jp("sha256('abc')")).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(jp("sha256('')")).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(jp("md5('foo')")).toBe('acbd18db4cc2f85cedef654fccc4a4d8');
    expect(() => jp('sha256(`{}`)')).toThrow(/type/);
  });
});
