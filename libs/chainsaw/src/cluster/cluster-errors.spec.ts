import { describe, expect, it } from 'vitest';
import { NoKindMatchError, isTransientAnswer } from './cluster-errors';

describe('cluster errors', () => {
  it('names the kind and version as chainsaw reports an unmapped kind', () => {
    expect(new NoKindMatchError('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy').message).toBe(
      'no matches for kind "ValidatingAdmissionPolicy" in version "admissionregistration.k8s.io/v1"',
    );
  });

  it('retries conflicts, timeouts, throttling and unavailability; every other answer is final', () => {
    const transient: Array<[number, string]> = [
      [409, 'Conflict'],
      [429, 'TooManyRequests'],
      [503, 'ServiceUnavailable'],
      [503, ''],
      [504, 'Timeout'],
      [500, 'ServerTimeout'],
    ];
    const final: Array<[number, string]> = [
      [409, 'AlreadyExists'],
      [409, ''],
      [400, 'BadRequest'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [422, 'Invalid'],
      [500, 'InternalError'],
    ];
    expect(transient.filter(([code, reason]) => !isTransientAnswer(code, reason))).toEqual([]);
    expect(final.filter(([code, reason]) => isTransientAnswer(code, reason))).toEqual([]);
  });
});
