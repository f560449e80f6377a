/**
 * Go `time` semantics that Kyverno's time_* functions expose: `time.Parse` with Go reference
 * layouts ("2006-01-02T15:04:05Z07:00"), `Format(time.RFC3339)`, nanosecond arithmetic,
 * `Truncate` (relative to Go's zero time) and `Sub` (saturating at the int64 range).
 * A time keeps the UTC offset it was parsed with, as Go's does, so results print in that offset.
 */

export interface GoTime {
  /** Seconds since the Unix epoch (integer). */
  readonly sec: number;
  /** 0 ≤ nsec < 1e9. */
  readonly nsec: number;
  /** Seconds east of UTC used when printing. */
  readonly offset: number;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
const NANOS = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
/** Go's zero time (January 1, year 1, UTC) in Unix seconds: Truncate rounds relative to it. */
const ZERO_TIME_UNIX = -62135596800n;

const LONG_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

// ---- civil calendar (proleptic Gregorian, any year) ----

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Wall-clock fields of `t` in its own offset. */
export function civil(t: GoTime) {
  const local = t.sec + t.offset;
  const days = Math.floor(local / 86400);
  const secondOfDay = local - days * 86400;
  const date = civilFromDays(days);
  return {
    ...date,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor((secondOfDay % 3600) / 60),
    second: secondOfDay % 60,
    weekday: (((days + 4) % 7) + 7) % 7, // 1970-01-01 was a Thursday
  };
}

// ---- arithmetic ----

export function fromDate(date: Date): GoTime {
  const ms = date.getTime();
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: (ms - sec * 1000) * 1_000_000, offset: 0 };
}

const toNanos = (t: GoTime) => BigInt(t.sec) * NANOS + BigInt(t.nsec);

function fromNanos(total: bigint, offset: number): GoTime {
  let sec = total / NANOS;
  let nsec = total % NANOS;
  if (nsec < 0n) {
    nsec += NANOS;
    sec -= 1n;
  }
  return { sec: Number(sec), nsec: Number(nsec), offset };
}

export function addDuration(t: GoTime, d: bigint): GoTime {
  return fromNanos(toNanos(t) + d, t.offset);
}

/** Go `t2.Sub(t1)`, saturating at the Duration range. */
export function sub(t2: GoTime, t1: GoTime): bigint {
  const d = toNanos(t2) - toNanos(t1);
  return d > MAX_INT64 ? MAX_INT64 : d < MIN_INT64 ? MIN_INT64 : d;
}

export function compareTimes(a: GoTime, b: GoTime): number {
  const d = toNanos(a) - toNanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** Go `t.Truncate(d)`: rounds down to a multiple of d since the zero time; d ≤ 0 is a no-op. */
export function truncate(t: GoTime, d: bigint): GoTime {
  if (d <= 0n) return t;
  const sinceZero = toNanos(t) - ZERO_TIME_UNIX * NANOS;
  return fromNanos(toNanos(t) - (sinceZero % d), t.offset);
}

export function inUtc(t: GoTime): GoTime {
  return { ...t, offset: 0 };
}

// ---- formatting ----

const pad = (n: number, width: number) => String(Math.abs(n)).padStart(width, '0');

/** `t.Format(time.RFC3339)`: whole seconds, "Z" for a zero offset. */
export function formatRFC3339(t: GoTime): string {
  const c = civil(t);
  const year = c.year < 0 ? `-${pad(c.year, 4)}` : pad(c.year, 4);
  const date = `${year}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
  if (t.offset === 0) return `${date}Z`;
  const sign = t.offset < 0 ? '-' : '+';
  const abs = Math.abs(t.offset);
  return `${date}${sign}${pad(Math.floor(abs / 3600), 2)}:${pad(Math.floor((abs % 3600) / 60), 2)}`;
}

// ---- parsing ----

type Chunk =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'std'; readonly std: string; readonly digits?: number };

const STD_PREFIXES = [
  'January',
  'Jan',
  'Monday',
  'Mon',
  'MST',
  '2006',
  '002',
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '15',
  '__2',
  '_2',
  '-07:00:00',
  '-070000',
  '-07:00',
  '-0700',
  '-07',
  'Z07:00:00',
  'Z070000',
  'Z07:00',
  'Z0700',
  'Z07',
  'PM',
  'pm',
  '1',
  '2',
  '3',
  '4',
  '5',
];

/** Splits a Go layout into literal text and standard elements, like Go's `nextStdChunk`. */
function tokenizeLayout(layout: string): Chunk[] {
  const chunks: Chunk[] = [];
  let literal = '';
  let i = 0;
  const flush = () => {
    if (literal) chunks.push({ kind: 'literal', text: literal });
    literal = '';
  };
  while (i < layout.length) {
    const c = layout[i]!;
    if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const digit = layout[i + 1]!;
      let j = i + 1;
      while (layout[j] === digit) j++;
      if (!/[0-9]/.test(layout[j] ?? '')) {
        flush();
        chunks.push({ kind: 'std', std: digit === '0' ? '.000' : '.999', digits: j - i - 1 });
        i = j;
        continue;
      }
    }
    const std = STD_PREFIXES.find((p) => layout.startsWith(p, i) && !(p === 'Jan' && layout.startsWith('January', i)));
    // "Mon"/"MST" must not swallow a longer lowercase word ("Month"); Go checks the same way.
    if (
      std &&
      !(
        /^[A-Z][a-z]*$/.test(std) &&
        /[a-z]/.test(layout[i + std.length] ?? '') &&
        std !== 'January' &&
        std !== 'Monday'
      )
    ) {
      flush();
      chunks.push({ kind: 'std', std });
      i += std.length;
      continue;
    }
    literal += c;
    i++;
  }
  flush();
  return chunks;
}

export class TimeParseError extends Error {}

const goQuote = (s: string) => JSON.stringify(s);

function lookupName(value: string, names: readonly string[]): [number, number] | undefined {
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (value.length >= name.length && value.slice(0, name.length).toLowerCase() === name.toLowerCase())
      return [i, name.length];
  }
  return undefined;
}

/** Reads 1–2 digits (exactly 2 when `fixed`), like Go's getnum. */
function getNum(value: string, fixed: boolean): [number, number] | undefined {
  if (!/^[0-9]/.test(value)) return undefined;
  if (!/^[0-9][0-9]/.test(value)) return fixed ? undefined : [Number(value[0]), 1];
  return [Number(value.slice(0, 2)), 2];
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nsec: number;
  offset: number | undefined;
  pm: boolean | undefined;
}

/** Go `time.Parse(layout, value)`; throws TimeParseError with Go's message shape. */
export function parseTime(layout: string, value: string): GoTime {
  const original = value;
  const fail = (rest: string, elem: string): never => {
    throw new TimeParseError(
      `parsing time ${goQuote(original)} as ${goQuote(layout)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`,
    );
  };
  const outOfRange = (what: string): never => {
    throw new TimeParseError(`parsing time ${goQuote(original)}: ${what} out of range`);
  };
  const f: Fields = {
    year: 0,
    month: 1,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    nsec: 0,
    offset: undefined,
    pm: undefined,
  };
  const chunks = tokenizeLayout(layout);
  let rest = value;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    if (chunk.kind === 'literal') {
      rest = skipLiteral(rest, chunk.text) ?? fail(rest, chunk.text);
      continue;
    }
    const before = rest;
    const bad = () => fail(before, chunk.std);
    switch (chunk.std) {
      case '2006':
        if (!/^[0-9]{4}/.test(rest)) bad();
        f.year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      case '06': {
        const n = getNum(rest, true) ?? bad();
        f.year = n[0] >= 69 ? 1900 + n[0] : 2000 + n[0];
        rest = rest.slice(2);
        break;
      }
      case 'January':
      case 'Jan': {
        const names = chunk.std === 'Jan' ? LONG_MONTHS.map((m) => m.slice(0, 3)) : LONG_MONTHS;
        const found = lookupName(rest, names) ?? bad();
        f.month = found[0] + 1;
        rest = rest.slice(found[1]);
        break;
      }
      case 'Monday':
      case 'Mon': {
        const names = chunk.std === 'Mon' ? LONG_DAYS.map((d) => d.slice(0, 3)) : LONG_DAYS;
        rest = rest.slice((lookupName(rest, names) ?? bad())[1]);
        break;
      }
      case '01':
      case '1': {
        const n = getNum(rest, chunk.std === '01') ?? bad();
        if (n[0] < 1 || n[0] > 12) outOfRange('month');
        f.month = n[0];
        rest = rest.slice(n[1]);
        break;
      }
      case '02':
      case '2':
      case '_2': {
        if (chunk.std === '_2' && rest[0] === ' ') rest = rest.slice(1);
        const n = getNum(rest, chunk.std === '02') ?? bad();
        f.day = n[0];
        rest = rest.slice(n[1]);
        break;
      }
      case '002':
      case '__2': {
        const m = /^ {0,2}[0-9]{1,3}/.exec(rest) ?? bad();
        rest = rest.slice(m[0].length); // day-of-year: accepted but not applied (rare in policies)
        break;
      }
      case '15':
      case '03':
      case '3': {
        const n = getNum(rest, chunk.std === '03') ?? bad();
        if (n[0] > (chunk.std === '15' ? 23 : 12)) outOfRange('hour');
        f.hour = n[0];
        rest = rest.slice(n[1]);
        break;
      }
      case '04':
      case '4': {
        const n = getNum(rest, chunk.std === '04') ?? bad();
        if (n[0] > 59) outOfRange('minute');
        f.minute = n[0];
        rest = rest.slice(n[1]);
        break;
      }
      case '05':
      case '5': {
        const n = getNum(rest, chunk.std === '05') ?? bad();
        if (n[0] > 59) outOfRange('second');
        f.second = n[0];
        rest = rest.slice(n[1]);
        // Go accepts fractional seconds after the seconds even when the layout has none.
        const next = chunks[index + 1];
        if (/^[.,][0-9]/.test(rest) && !(next?.kind === 'std' && next.std.startsWith('.'))) {
          const digits = /^[.,]([0-9]+)/.exec(rest)![1]!;
          f.nsec = fractionToNanos(digits);
          rest = rest.slice(digits.length + 1);
        }
        break;
      }
      case 'PM':
      case 'pm': {
        const word = rest.slice(0, 2);
        const upper = chunk.std === 'PM';
        if (word === (upper ? 'PM' : 'pm')) f.pm = true;
        else if (word === (upper ? 'AM' : 'am')) f.pm = false;
        else bad();
        rest = rest.slice(2);
        break;
      }
      case '.000':
      case '.999': {
        const m = /^[.,]([0-9]+)/.exec(rest);
        if (chunk.std === '.000') {
          if (!m || m[1]!.length < chunk.digits!) bad();
          f.nsec = fractionToNanos(m![1]!.slice(0, chunk.digits));
          rest = rest.slice(chunk.digits! + 1);
        } else if (m) {
          f.nsec = fractionToNanos(m[1]!);
          rest = rest.slice(m[0].length);
        }
        break;
      }
      case 'MST': {
        const zone = /^(UTC|GMT(?:[+-][0-9]{1,2})?|[A-Z]{3,5})/.exec(rest) ?? bad();
        const gmtOffset = /^GMT([+-][0-9]{1,2})$/.exec(zone[0]);
        // Unknown abbreviations get a zero offset, as Go does outside the local zone.
        f.offset = gmtOffset ? Number(gmtOffset[1]) * 3600 : 0;
        rest = rest.slice(zone[0].length);
        break;
      }
      default: {
        // Numeric zones: -07, -0700, -07:00, -070000, -07:00:00 and their Z variants.
        if (chunk.std.startsWith('Z') && rest[0] === 'Z') {
          f.offset = 0;
          rest = rest.slice(1);
          break;
        }
        const shape = chunk.std.slice(1);
        const pattern = new RegExp(`^[+-]${shape.replace(/0/g, '[0-9]').replace(/7/g, '[0-9]')}`);
        const m = pattern.exec(rest) ?? bad();
        const digits = m[0].slice(1).replace(/:/g, '');
        const hh = Number(digits.slice(0, 2));
        const mm = Number(digits.slice(2, 4) || '0');
        const ss = Number(digits.slice(4, 6) || '0');
        if (hh > 24 || mm > 60 || ss > 60) outOfRange('time zone');
        const offset = hh * 3600 + mm * 60 + ss;
        f.offset = m[0][0] === '-' ? -offset : offset;
        rest = rest.slice(m[0].length);
      }
    }
  }
  if (rest.length > 0) throw new TimeParseError(`parsing time ${goQuote(original)}: extra text: ${goQuote(rest)}`);
  if (f.pm === true && f.hour < 12) f.hour += 12;
  if (f.pm === false && f.hour === 12) f.hour = 0;
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) outOfRange('day');
  const offset = f.offset ?? 0;
  const local = daysFromCivil(f.year, f.month, f.day) * 86400 + f.hour * 3600 + f.minute * 60 + f.second;
  return { sec: local - offset, nsec: f.nsec, offset };
}

/** Go's literal matching: a space in the layout matches one or more spaces in the value. */
function skipLiteral(value: string, literal: string): string | undefined {
  let v = value;
  let l = literal;
  while (l.length > 0) {
    if (l[0] === ' ') {
      if (v.length > 0 && v[0] !== ' ') return undefined;
      l = l.replace(/^ +/, '');
      v = v.replace(/^ +/, '');
      continue;
    }
    if (v[0] !== l[0]) return undefined;
    v = v.slice(1);
    l = l.slice(1);
  }
  return v;
}

function fractionToNanos(digits: string): number {
  return Number(digits.slice(0, 9).padEnd(9, '0'));
}
