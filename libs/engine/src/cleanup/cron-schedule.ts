/**
 * Cleanup policy schedules as Kyverno reads them (robfig/cron's standard parser): five fields
 * (minute hour day-of-month month day-of-week) with `*`, `?`, lists, ranges, steps and month and
 * weekday names, or a descriptor (`@hourly`, `@daily`, `@every 90s`...). Times are UTC. A time zone
 * prefix (`CRON_TZ=`, `TZ=`) is refused rather than silently read as UTC.
 */
import { parseDurationNanos } from '@edict/foundation';

export class CronScheduleError extends Error {
  override readonly name = 'CronScheduleError';
}

export interface CronSchedule {
  /** The first slot strictly after `after` (whole minutes; whole seconds for `@every`), or undefined when none within five years. */
  next(after: Date): Date | undefined;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAY_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 6, names: DAY_NAMES },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Longest schedule text read (a schedule is a policy's input). */
const MAX_SCHEDULE_LENGTH = 256;
const MINUTE_MS = 60_000;
const SEARCH_YEARS = 5;

/** Parses `text`; throws CronScheduleError saying what is wrong. */
export function parseCronSchedule(text: string): CronSchedule {
  if (typeof text !== 'string' || text.trim() === '') throw new CronScheduleError('empty schedule');
  if (text.length > MAX_SCHEDULE_LENGTH)
    throw new CronScheduleError(`schedule longer than ${MAX_SCHEDULE_LENGTH} characters`);
  const spec = text.trim();
  if (/^(CRON_)?TZ=/.test(spec))
    throw new CronScheduleError('time zone prefixes are not supported (schedules run in UTC)');
  if (spec.startsWith('@every ')) return everySchedule(spec.slice('@every '.length).trim());
  if (spec.startsWith('@')) {
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new CronScheduleError(`unrecognized descriptor: ${spec}`);
    return fieldSchedule(expanded);
  }
  return fieldSchedule(spec);
}

/** Why `text` is not a schedule, or undefined when it is. */
export function cronScheduleProblem(text: string): string | undefined {
  try {
    parseCronSchedule(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function everySchedule(durationText: string): CronSchedule {
  const nanos = parseDurationNanos(durationText);
  if (nanos === undefined || nanos <= 0n)
    throw new CronScheduleError(`failed to parse duration @every ${durationText}`);
  // robfig rounds to whole seconds, at least one.
  const stepMs = Math.max(1, Number(nanos / 1_000_000_000n)) * 1000;
  return { next: (after) => new Date(Math.floor(after.getTime() / 1000) * 1000 + stepMs) };
}

function fieldSchedule(spec: string): CronSchedule {
  const parts = spec.split(/\s+/);
  if (parts.length !== FIELDS.length)
    throw new CronScheduleError(
      `expected exactly ${FIELDS.length} fields, found ${parts.length}: [${parts.join(' ')}]`,
    );
  const fields = parts.map((part, i) => parseField(part, FIELDS[i]!));
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = fields as [Field, Field, Field, Field, Field];
  // As in cron: when either day field is a bare `*`, both must hold; otherwise either may.
  const dayMatches = (date: Date) => {
    const dom = daysOfMonth.values.has(date.getUTCDate());
    const dow = daysOfWeek.values.has(date.getUTCDay());
    return daysOfMonth.star || daysOfWeek.star ? dom && dow : dom || dow;
  };
  return {
    next(after: Date): Date | undefined {
      let t = new Date((Math.floor(after.getTime() / MINUTE_MS) + 1) * MINUTE_MS);
      const limit = after.getTime() + SEARCH_YEARS * 366 * 24 * 60 * MINUTE_MS;
      while (t.getTime() <= limit) {
        if (!months.values.has(t.getUTCMonth() + 1)) {
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
        } else if (!dayMatches(t)) {
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + 1));
        } else if (!hours.values.has(t.getUTCHours())) {
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours() + 1));
        } else if (!minutes.values.has(t.getUTCMinutes())) {
          t = new Date(t.getTime() + MINUTE_MS);
        } else {
          return t;
        }
      }
      return undefined;
    },
  };
}

interface Field {
  readonly values: ReadonlySet<number>;
  /** A bare `*` or `?` (no step): the day fields then combine with AND. */
  readonly star: boolean;
}

function parseField(text: string, spec: FieldSpec): Field {
  const values = new Set<number>();
  let star = false;
  for (const item of text.split(',')) {
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined || range === undefined || range === '')
      throw new CronScheduleError(`invalid ${spec.name} field: ${item}`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
        throw new CronScheduleError(`invalid step in ${spec.name} field: ${item}`);
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === '*' || range === '?') {
      [low, high] = [spec.min, spec.max];
      if (stepText === undefined) star = true;
    } else {
      const bounds = range.split('-');
      if (bounds.length > 2) throw new CronScheduleError(`invalid range in ${spec.name} field: ${item}`);
      low = valueOf(bounds[0]!, spec);
      // `5/10` means from 5 to the end, stepping 10.
      high = bounds.length === 2 ? valueOf(bounds[1]!, spec) : stepText !== undefined ? spec.max : low;
    }
    if (low < spec.min || high > spec.max)
      throw new CronScheduleError(`${spec.name} out of range (${spec.min}-${spec.max}): ${item}`);
    if (low > high) throw new CronScheduleError(`beginning of range after end in ${spec.name} field: ${item}`);
    for (let v = low; v <= high; v += step) values.add(v);
  }
  return { values, star };
}

function valueOf(text: string, spec: FieldSpec): number {
  const named = spec.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d{1,2}$/.test(text)) throw new CronScheduleError(`invalid value in ${spec.name} field: ${text}`);
  return Number(text);
}
