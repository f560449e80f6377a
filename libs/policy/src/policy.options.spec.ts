import { describe, expect, it } from 'vitest';
import { PolicyModule } from './policy.module';
import { PolicyOptionsError, validatePolicyOptions } from './policy.options';

describe('PolicyModule options', () => {
  it('accepts defaults and valid values', () => {
    expect(validatePolicyOptions({})).toMatchObject({});
    // Empty is valid: PolicyExceptions off, as when absent.
    expect(validatePolicyOptions({ exceptionNamespaces: [] })).toMatchObject({ exceptionNamespaces: [] });
    expect(validatePolicyOptions({ exceptionNamespaces: ['kyverno', 'team-*'], resyncIntervalMs: 0 })).toMatchObject({
      exceptionNamespaces: ['kyverno', 'team-*'],
      resyncIntervalMs: 0,
    });
  });

  it('names the bad field', () => {
    expect(() => validatePolicyOptions({ exceptionNamespaces: [3 as never] })).toThrow(/exceptionNamespaces/);
    expect(() => validatePolicyOptions({ resyncIntervalMs: -1 })).toThrow(/resyncIntervalMs/);
    expect(() => validatePolicyOptions({ watchTimeoutSeconds: 0 })).toThrow(/watchTimeoutSeconds/);
    expect(() => validatePolicyOptions({ bogus: true } as never)).toThrow(/bogus/);
    expect(() => PolicyModule.forRoot({ retryMaxMs: 1.5 })).toThrow(PolicyOptionsError);
    expect(() => PolicyModule.forRoot({ retryMaxMs: 1.5 })).toThrow(/Invalid PolicyModule options: retryMaxMs/);
  });
});
