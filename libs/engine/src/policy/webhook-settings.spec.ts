import { describe, expect, it } from 'vitest';
import type { Policy } from './types';
import { failurePolicyOf, webhookTimeoutSecondsOf } from './webhook-settings';

const spec = (fields: Partial<Policy['spec']>): Pick<Policy, 'spec'> => ({ spec: { rules: [], ...fields } });

describe('failurePolicyOf', () => {
  it('is Fail when nothing is set', () => {
    expect(failurePolicyOf(spec({}))).toBe('Fail');
  });

  it('reads spec.failurePolicy', () => {
    expect(failurePolicyOf(spec({ failurePolicy: 'Ignore' }))).toBe('Ignore');
  });

  it('prefers webhookConfiguration.failurePolicy over spec.failurePolicy', () => {
    expect(failurePolicyOf(spec({ failurePolicy: 'Fail', webhookConfiguration: { failurePolicy: 'Ignore' } }))).toBe(
      'Ignore',
    );
    expect(failurePolicyOf(spec({ failurePolicy: 'Ignore', webhookConfiguration: { failurePolicy: 'Fail' } }))).toBe(
      'Fail',
    );
  });

  it('falls back to spec.failurePolicy when webhookConfiguration has none', () => {
    expect(failurePolicyOf(spec({ failurePolicy: 'Ignore', webhookConfiguration: { timeoutSeconds: 5 } }))).toBe(
      'Ignore',
    );
  });
});

describe('webhookTimeoutSecondsOf', () => {
  it('prefers webhookConfiguration.timeoutSeconds, then webhookTimeoutSeconds', () => {
    expect(webhookTimeoutSecondsOf(spec({}))).toBeUndefined();
    expect(webhookTimeoutSecondsOf(spec({ webhookTimeoutSeconds: 12 }))).toBe(12);
    expect(
      webhookTimeoutSecondsOf(spec({ webhookTimeoutSeconds: 12, webhookConfiguration: { timeoutSeconds: 20 } })),
    ).toBe(20);
  });
});
