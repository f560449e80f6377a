import { describe, expect, it } from 'vitest';
import { DEFAULT_CERT_TIMING } from '@edict/cert';
import { certTimingProblemOf, certTimingProblems, type CertTiming } from './cert-timing';

const DEFAULTS: CertTiming = {
  caValidityMs: DEFAULT_CERT_TIMING.caValidityMs,
  tlsValidityMs: DEFAULT_CERT_TIMING.leafValidityMs,
  renewBeforeMs: DEFAULT_CERT_TIMING.renewBeforeMs,
  caPropagationMs: DEFAULT_CERT_TIMING.caPropagationMs,
  certCheckIntervalMs: 60 * 60 * 1000,
};

/** The compressed lifetimes of the chaos run's `certs` scenario. */
const COMPRESSED: CertTiming = {
  caValidityMs: 90_000,
  tlsValidityMs: 36_000,
  renewBeforeMs: 18_000,
  caPropagationMs: 6_000,
  certCheckIntervalMs: 1_000,
};

describe('certTimingProblems', () => {
  it('accepts the defaults and compressed lifetimes that keep their proportions', () => {
    expect(certTimingProblems(DEFAULTS)).toEqual([]);
    expect(certTimingProblems(COMPRESSED)).toEqual([]);
  });

  it('refuses a serving certificate that would outlive its CA, on tlsValidityMs', () => {
    expect(certTimingProblems({ ...COMPRESSED, tlsValidityMs: 90_001 })).toEqual([
      { field: 'tlsValidityMs', message: expect.stringMatching(/^must not exceed caValidityMs \(90001 > 90000\)/) },
    ]);
    expect(certTimingProblems({ ...COMPRESSED, tlsValidityMs: 90_000 })).toEqual([]);
  });

  it('refuses a renew-before as long as either validity, on renewBeforeMs', () => {
    expect(certTimingProblemOf('renewBeforeMs', { ...COMPRESSED, renewBeforeMs: 36_000 })).toMatch(
      /^must be less than tlsValidityMs \(36000 >= 36000\)/,
    );
    const both = certTimingProblemOf('renewBeforeMs', { ...COMPRESSED, tlsValidityMs: 90_000, renewBeforeMs: 90_000 });
    expect(both).toMatch(/less than tlsValidityMs/);
    expect(both).toMatch(/less than caValidityMs \(90000 >= 90000\)/);
    expect(certTimingProblemOf('tlsValidityMs', { ...COMPRESSED, renewBeforeMs: 36_000 })).toBeUndefined();
  });

  it('needs room in renew-before for the propagation wait and two checks', () => {
    // 6 s + 2 x 6 s = 18 s: the move to a new CA could come just as the old one expires.
    expect(certTimingProblemOf('renewBeforeMs', { ...COMPRESSED, certCheckIntervalMs: 6_000 })).toMatch(
      /^must exceed caPropagationMs \+ 2 x certCheckIntervalMs \(18000 <= 6000 \+ 2 x 6000\)/,
    );
    expect(certTimingProblems({ ...COMPRESSED, certCheckIntervalMs: 5_999 })).toEqual([]);
    expect(certTimingProblemOf('renewBeforeMs', { ...COMPRESSED, caPropagationMs: 16_000 })).toMatch(/caPropagationMs/);
    // The defaults' hourly check leaves a 15-day margin almost whole.
    expect(certTimingProblems({ ...DEFAULTS, caPropagationMs: 14 * 24 * 60 * 60 * 1000 })).toEqual([]);
  });

  it('leaves values that are not numbers to their own checks', () => {
    expect(certTimingProblems({ ...COMPRESSED, renewBeforeMs: 'soon' })).toEqual([]);
    expect(certTimingProblems({ tlsValidityMs: 10, renewBeforeMs: 20 })).toEqual([
      { field: 'renewBeforeMs', message: expect.stringMatching(/less than tlsValidityMs/) },
    ]);
    expect(certTimingProblems({})).toEqual([]);
  });
});
