import { describe, expect, it } from 'vitest';
import { compileValidatingPolicy } from '../compile/compile-policy';
import { inputFor, matching, pod, validatingPolicy } from '../testing';
import { evaluateValidatingPolicy } from './evaluate-policy';

const noPrivileged = validatingPolicy('no-privileged', {
  validationActions: ['Deny'],
  matchConstraints: matching('', 'v1', 'pods'),
  validations: [
    {
      expression: 'object.spec.containers.all(c, !(c.?securityContext.?privileged.orValue(false)))',
      message: 'privileged containers are not allowed',
    },
  ],
});

describe('evaluateValidatingPolicy', () => {
  it('passes and fails pods as Kyverno reports them', async () => {
    const compiled = compileValidatingPolicy(noPrivileged);
    const good = await evaluateValidatingPolicy(
      compiled,
      inputFor(pod('good', 'default', { containers: [{ name: 'a' }] })),
      { ports: {} },
    );
    expect(good?.rules).toEqual([{ name: '', type: 'Validation', status: 'pass', message: 'success' }]);
    const bad = await evaluateValidatingPolicy(
      compiled,
      inputFor(pod('bad', 'default', { containers: [{ name: 'a', securityContext: { privileged: true } }] })),
      { ports: {} },
    );
    expect(bad?.rules).toEqual([
      { name: '', type: 'Validation', status: 'fail', message: 'privileged containers are not allowed' },
    ]);
    expect(bad?.policy).toEqual({ name: 'no-privileged', kind: 'ValidatingPolicy' });
    expect(bad?.resource).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'bad', namespace: 'default' });
    expect(bad?.validationFailureAction).toBe('Enforce');
  });
});
