import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("Kubernetes' CEL format library", () => {
  it('validates with the named formats: none when valid, else the reasons', () => {
    expect(evaluateCel("format.dns1123Label().validate('my-name').hasValue()")).toBe(false);
    expect(evaluateCel("format.dns1123Label().validate('My_Name').value()")).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(evaluateCel(`format.dns1123Label().validate('${'a'.repeat(64)}').value()`)).toEqual([
      'must be no more than 63 characters',
    ]);
    expect(evaluateCel("format.dns1123LabelPrefix().validate('web-').hasValue()")).toBe(false);
    expect(evaluateCel("format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()")).toBe(false);
    expect(evaluateCel("format.dns1035Label().validate('1abc').hasValue()")).toBe(true);
    expect(evaluateCel("format.qualifiedName().validate('example.com/MyName').hasValue()")).toBe(false);
    expect(evaluateCel("format.qualifiedName().validate('/MyName').value()")).toEqual([
      'prefix part must be non-empty',
    ]);
    expect(evaluateCel("format.labelValue().validate('').hasValue()")).toBe(false);
    expect(evaluateCel("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()")).toBe(false);
    expect(evaluateCel("format.byte().validate('not base64!').value()")).toEqual(['invalid base64']);
    expect(evaluateCel("format.date().validate('2021-02-29').value()")).toEqual(['invalid date']);
    expect(evaluateCel("format.datetime().validate('2021-01-01T10:00:00.5+02:00').hasValue()")).toBe(false);
    expect(evaluateCel("format.uri().validate('relative/path').value()")).toEqual([
      'parse "relative/path": invalid URI for request',
    ]);
  });

  it('finds formats by name, as an optional', () => {
    expect(evaluateCel("format.named('labelValue').value().validate('ok').hasValue()")).toBe(false);
    expect(evaluateCel("format.named('toString').hasValue()")).toBe(false);
    expect(celFailure('format.nope()')).toContain('format.nope()');
  });
});
