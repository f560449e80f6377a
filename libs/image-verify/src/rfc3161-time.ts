/**
 * The time an RFC 3161 timestamp states, read as DER writes it. genTime is a GeneralizedTime
 * `YYYYMMDDHHMMSS[.fraction]Z` whose fraction drops trailing zeros (`.12Z` for 120 ms, none for a
 * whole second); @sigstore/core reads only three-digit fractions and calls the others invalid
 * times, while Go's reader (cosign, Kyverno, notation) takes any. A timestamp from a TSA that
 * writes milliseconds would then fail one time in ten.
 */
import type { RFC3161Timestamp } from '@sigstore/core';

const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * `timestamp`, its signingTime read here from genTime (to the millisecond; @sigstore/core also drops
 * the fraction it reads); throws Error when genTime is no GeneralizedTime.
 */
export function withSigningTime<T extends RFC3161Timestamp>(timestamp: T): T {
  const genTime = timestamp.tstInfo.root.subs[4];
  if (!genTime?.tag.isGeneralizedTime()) throw new Error('the timestamp has no GeneralizedTime genTime');
  const signingTime = parseGeneralizedTime(genTime.value.toString('ascii'));
  Object.defineProperty(timestamp, 'signingTime', { value: signingTime, configurable: true });
  return timestamp;
}

/** A DER GeneralizedTime (UTC, optional fraction of 1 to 9 digits), to the millisecond. */
export function parseGeneralizedTime(text: string): Date {
  const match = GENERALIZED_TIME.exec(text);
  if (!match) throw new Error(`invalid GeneralizedTime ${JSON.stringify(text.slice(0, 40))}`);
  const [, year, month, day, hour, minute, second, fraction] = match;
  const millis = (fraction ?? '').padEnd(3, '0').slice(0, 3);
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}Z`;
  const date = new Date(iso);
  // A date that rolls over (February 30, hour 24) reads back differently.
  if (Number.isNaN(date.getTime()) || date.toISOString() !== iso)
    throw new Error(`invalid GeneralizedTime ${JSON.stringify(text)}`);
  return date;
}
