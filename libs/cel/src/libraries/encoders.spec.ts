import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("cel-go's encoders extension", () => {
  it('encodes and decodes standard base64, padding optional', () => {
    expect(evaluateCel("base64.encode(b'hello')")).toBe('aGVsbG8=');
    expect(evaluateCel("string(base64.decode('aGVsbG8='))")).toBe('hello');
    expect(evaluateCel("string(base64.decode('aGVsbG8'))")).toBe('hello');
    expect(celFailure("base64.decode('a$b=')")).toContain('illegal base64 data');
    expect(celFailure("base64.decode('aGVsbG8=x')")).toContain('illegal base64 data');
  });
});
