/**
 * The `cleanup.kyverno.io/ttl` label as Kyverno reads it: a Go duration counted from the object's
 * creation (`30s`, `2h45m`), or a moment (`2023-07-19T120000Z`, RFC 3339, or a date `2023-07-19`
 * meaning its midnight UTC). Label values cannot hold `:`, hence the compact time form. Anything
 * else is not a TTL: the object is left alone.
 */
import { parseDurationNanos } from '@edict/foundation';

export const TTL_LABEL = 'cleanup.kyverno.io/ttl';
/** Annotation choosing how a TTL deletion propagates to dependents. */
export const TTL_PROPAGATION_ANNOTATION = 'cleanup.kyverno.io/propagation-policy';

const COMPACT_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** When an object labelled `value` and created at `created` is due, or undefined for a value that is no TTL. */
export function ttlDeadline(value: string, created: Date): Date | undefined {
  const nanos = parseDurationNanos(value);
  if (nanos !== undefined) return new Date(created.getTime() + Number(nanos / 1_000_000n));
  const compact = COMPACT_TIME.exec(value);
  if (compact) {
    const [, y, mo, d, h, mi, s] = compact.map(Number) as number[];
    return validUtc(y!, mo!, d!, h!, mi!, s!);
  }
  const date = DATE.exec(value);
  if (date) {
    const [, y, mo, d] = date.map(Number) as number[];
    return validUtc(y!, mo!, d!, 0, 0, 0);
  }
  if (RFC3339.test(value)) {
    const time = new Date(value);
    return Number.isNaN(time.getTime()) ? undefined : time;
  }
  return undefined;
}

/** A UTC moment from its parts, or undefined when they name no real one (month 13, February 30). */
function validUtc(year: number, month: number, day: number, hour: number, minute: number, second: number) {
  const time = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const exact =
    time.getUTCFullYear() === year &&
    time.getUTCMonth() === month - 1 &&
    time.getUTCDate() === day &&
    time.getUTCHours() === hour &&
    time.getUTCMinutes() === minute &&
    time.getUTCSeconds() === second;
  return exact ? time : undefined;
}

/**
 * Why a label value is no TTL, in the words of the Go error Kyverno's `/verifyttl` webhook quotes (its
 * last attempt, `time.Parse("2006-01-02", value)`); undefined for a value that is a TTL.
 */
export function ttlLabelProblem(value: string): string | undefined {
  if (ttlDeadline(value, new Date(0)) !== undefined) return undefined;
  const quoted = JSON.stringify(value);
  const cannot = (rest: string, element: string) =>
    `parsing time ${quoted} as "2006-01-02": cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(element)}`;
  if (!/^\d{4}/.test(value)) return cannot(value, '2006');
  let rest = value.slice(4);
  if (!rest.startsWith('-')) return cannot(rest, '-');
  rest = rest.slice(1);
  if (!/^\d\d/.test(rest)) return cannot(rest, '01');
  const month = Number(rest.slice(0, 2));
  if (month < 1 || month > 12) return `parsing time ${quoted}: month out of range`;
  rest = rest.slice(2);
  if (!rest.startsWith('-')) return cannot(rest, '-');
  rest = rest.slice(1);
  // Go takes one or two digits for the day here, and checks the date once parsed.
  const day = /^\d\d?/.exec(rest)?.[0];
  if (day === undefined) return cannot(rest, '02');
  rest = rest.slice(day.length);
  if (rest !== '') return `parsing time ${quoted}: extra text: ${JSON.stringify(rest)}`;
  return `parsing time ${quoted}: day out of range`;
}
