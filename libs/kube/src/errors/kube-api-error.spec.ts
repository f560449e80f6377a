import { describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isGone, isNotFound, KubeApiError, toKubeApiError } from './kube-api-error';

const status = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'configmaps "x" not found',
  reason: 'NotFound',
  code: 404,
};

describe('KubeApiError', () => {
  it('maps a client-node ApiException whose body is a Status JSON string', () => {
    const exception = Object.assign(new Error('HTTP-Code: 404'), { code: 404, body: JSON.stringify(status) });
    const error = toKubeApiError(exception)!;
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "x" not found' });
    expect(isNotFound(exception)).toBe(true);
  });

  it('maps a body that is already an object, and a non-Status body', () => {
    expect(toKubeApiError({ code: 409, body: { ...status, code: 409, reason: 'AlreadyExists' } })).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
    });
    expect(toKubeApiError({ code: 502, body: '<html>bad gateway</html>' })).toMatchObject({
      code: 502,
      reason: '',
      message: '<html>bad gateway</html>',
    });
    expect(toKubeApiError({ code: 503, body: '' })).toMatchObject({ code: 503, message: 'HTTP 503' });
  });

  it("maps client-node Watch's Error with statusCode", () => {
    expect(toKubeApiError(Object.assign(new Error('Gone'), { statusCode: 410 }))).toMatchObject({
      code: 410,
      message: 'Gone',
    });
  });

  it('leaves transport errors alone', () => {
    expect(toKubeApiError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(toKubeApiError('nope')).toBeUndefined();
    expect(isNotFound(new Error('x'))).toBe(false);
  });

  it('takes the code from the Status, falling back to the HTTP code', () => {
    expect(
      KubeApiError.fromStatus({ reason: 'Expired', message: 'too old resource version: 1 (5)', code: 410 }),
    ).toMatchObject({ code: 410 });
    expect(KubeApiError.fromStatus({ message: 'x' }, 500).code).toBe(500);
  });

  it('tells conflicts from already-exists', () => {
    const conflict = new KubeApiError(409, 'Conflict', 'the object has been modified');
    const exists = new KubeApiError(409, 'AlreadyExists', 'already exists');
    expect([isConflict(conflict), isAlreadyExists(conflict)]).toEqual([true, false]);
    expect([isConflict(exists), isAlreadyExists(exists)]).toEqual([true, true]);
    expect(isGone(new KubeApiError(410, 'Expired', 'x'))).toBe(true);
  });
});
