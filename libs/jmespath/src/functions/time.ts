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
  { name: 'time_since', signature: [str, str, str], fn: timeSince },
  { name: 'time_now', signature: [], fn: () => formatRFC3339(fromDate(jmesPathNow())) },
  { name: 'time_now_utc', signature: [], fn: () => formatRFC3339(fromDate(jmesPathNow())) },
  { name: 'time_to_cron', signature: [str], fn: timeToCron },
  { name: 'time_add', signature: [str, str], fn: (a) => formatRFC3339(addDuration(rfc3339(a[0]), duration(a[1]))) },
  { name: 'time_parse', signature: [str, str], fn: timeParse },
  { name: 'time_utc', signature: [str], fn: (a) => formatRFC3339(inUtc(rfc3339(a[0]))) },
  { name: 'time_diff', signature: [str, str], fn: (a) => formatDuration(sub(rfc3339(a[1]), rfc3339(a[0]))) },
  { name: 'time_before', signature: [str, str], fn: (a) => compareTimes(rfc3339(a[0]), rfc3339(a[1])) < 0 },
  { name: 'time_after', signature: [str, str], fn: (a) => compareTimes(rfc3339(a[0]), rfc3339(a[1])) > 0 },
  {
    name: 'time_between',
    signature: [str, str, str],
    fn: (a) => {
      const t = rfc3339(a[0]);
      return compareTimes(t, rfc3339(a[1])) > 0 && compareTimes(t, rfc3339(a[2])) < 0;
    },
  },
  { name: 'time_truncate', signature: [str, str], fn: (a) => formatRFC3339(truncate(rfc3339(a[0]), duration(a[1]))) },
];
