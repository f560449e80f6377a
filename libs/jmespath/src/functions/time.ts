import { type JsonValue, formatDuration, parseDurationNanos } from '@edict/foundation';
import { jmesPathNow } from '../clock';
import { JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import {
  RFC3339,
  addDuration,
  civil,
  compareTimes,
  formatRFC3339,
  fromDate,
  inUtc,
  parseTime,
  sub,
  truncate,
  type GoTime,
} from './go-time';
import { str } from './signatures';

/** Kyverno returns Go's own errors for these (no function-name prefix). */
function parse(layout: string, value: string): GoTime {
  try {
    return parseTime(layout, value);
  } catch (error) {
    throw new JmesPathError((error as Error).message);
  }
}

const rfc3339 = (value: JsonValue | undefined) => parse(RFC3339, value as string);

function duration(value: JsonValue | undefined): bigint {
  const parsed = parseDurationNanos(value as string);
  if (parsed === undefined) throw new JmesPathError(`time: invalid duration ${JSON.stringify(value)}`);
  return parsed;
}

function timeSince(args: JsonValue[]): JsonValue {
  const [layout, from, to] = args as [string, string, string];
  const effectiveLayout = layout === '' ? RFC3339 : layout;
  const start = parse(effectiveLayout, from);
  const end = to === '' ? fromDate(jmesPathNow()) : parse(effectiveLayout, to);
  return formatDuration(sub(end, start));
}

/** time_parse: a layout that is an integer means "the value is Unix seconds". */
function timeParse(args: JsonValue[]): JsonValue {
  const [layout, value] = args as [string, string];
  if (/^[+-]?[0-9]+$/.test(layout)) {
    if (!/^[+-]?[0-9]+$/.test(value))
      throw new JmesPathError(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
    return formatRFC3339({ sec: Number(value), nsec: 0, offset: 0 });
  }
  return formatRFC3339(parse(layout, value));
}

function timeToCron(args: JsonValue[]): JsonValue {
  const c = civil(rfc3339(args[0]));
  return `${c.minute} ${c.hour} ${c.day} ${c.month} ${c.weekday}`;
}

export const timeFunctions: FunctionDefinition[] = [
  {
    name: 'time_since',
    returns: ['string'],
    note: 'calculate the difference between a start and end period of time where the end may either be a static definition or the then-current time',
    signature: [str, str, str],
    fn: timeSince,
  },
  {
    name: 'time_now',
    returns: ['string'],
    note: 'returns current time in RFC 3339 format',
    signature: [],
    fn: () => formatRFC3339(fromDate(jmesPathNow())),
  },
  {
    name: 'time_now_utc',
    returns: ['string'],
    note: 'returns current UTC time in RFC 3339 format',
    signature: [],
    fn: () => formatRFC3339(fromDate(jmesPathNow())),
  },
  {
    name: 'time_to_cron',
    returns: ['string'],
    note: 'converts a time (RFC 3339) to a cron expression (string).',
    signature: [str],
    fn: timeToCron,
  },
  {
    name: 'time_add',
    returns: ['string'],
    note: 'adds duration (second string) to a time value (first string)',
    signature: [str, str],
    fn: (a) => formatRFC3339(addDuration(rfc3339(a[0]), duration(a[1]))),
  },
  {
    name: 'time_parse',
    returns: ['string'],
    note: 'changes a time value of a given layout to RFC 3339',
    signature: [str, str],
    fn: timeParse,
  },
  {
    name: 'time_utc',
    returns: ['string'],
    note: 'calcutes time in UTC from a given time in RFC 3339 format',
    signature: [str],
    fn: (a) => formatRFC3339(inUtc(rfc3339(a[0]))),
  },
  {
    name: 'time_diff',
    returns: ['string'],
    note: 'calculate the difference between a start and end date in RFC3339 format',
    signature: [str, str],
    fn: (a) => formatDuration(sub(rfc3339(a[1]), rfc3339(a[0]))),
  },
  {
    name: 'time_before',
    returns: ['bool'],
    note: 'checks if a time is before another time, both in RFC3339 format',
    signature: [str, str],
    fn: (a) => compareTimes(rfc3339(a[0]), rfc3339(a[1])) < 0,
  },
  {
    name: 'time_after',
    returns: ['bool'],
    note: 'checks if a time is after another time, both in RFC3339 format',
    signature: [str, str],
    fn: (a) => compareTimes(rfc3339(a[0]), rfc3339(a[1])) > 0,
  },
  {
    name: 'time_between',
    returns: ['bool'],
    note: 'checks if a time is between a start and end time, all in RFC3339 format',
    signature: [str, str, str],
    fn: (a) => {
      const t = rfc3339(a[0]);
      return compareTimes(t, rfc3339(a[1])) > 0 && compareTimes(t, rfc3339(a[2])) < 0;
    },
  },
  {
    name: 'time_truncate',
    returns: ['string'],
    note: 'returns the result of rounding time down to a multiple of duration',
    signature: [str, str],
    fn: (a) => formatRFC3339(truncate(rfc3339(a[0]), duration(a[1]))),
  },
];
