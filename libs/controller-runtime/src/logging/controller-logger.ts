/**
 * Kyverno's logging settings for every controller and the launcher: --loggingFormat (`text`, the
 * default, or `json`), -v (verbosity) and --loggingtsFormat (the JSON lines' timestamp).
 *
 * Verbosity, as Kyverno's logr levels: errors, warnings and Edict's informational lines (Kyverno's
 * plain `Info`, V(0)) always show; debug lines from -v 4, verbose ones from -v 6. Kyverno's chart
 * sets 2. Text keeps Nest's console format; JSON writes one object per line with zap's keys, as
 * Kyverno's JSON logs: `level`, `ts`, `logger`, `msg`, and `error` and `stacktrace` for errors.
 */
import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';

export const LOGGING_FORMATS = ['text', 'json'] as const;
export type LoggingFormat = (typeof LOGGING_FORMATS)[number];
export const LOGGING_TIMESTAMP_FORMATS = ['rfc3339', 'rfc3339nano', 'iso8601', 'millis', 'nanos'] as const;
export type LoggingTimestampFormat = (typeof LOGGING_TIMESTAMP_FORMATS)[number];

export interface LoggingSettings {
  readonly loggingFormat: LoggingFormat;
  readonly verbosity: number;
  readonly loggingTimestampFormat?: LoggingTimestampFormat;
}

/** The verbosity from which each Nest level shows. */
const LEVEL_VERBOSITY: Readonly<Record<LogLevel, number>> = {
  fatal: 0,
  error: 0,
  warn: 0,
  log: 0,
  debug: 4,
  verbose: 6,
};

/** The Nest levels shown at verbosity `v`. */
export function logLevels(verbosity: number): LogLevel[] {
  return (Object.keys(LEVEL_VERBOSITY) as LogLevel[]).filter((level) => verbosity >= LEVEL_VERBOSITY[level]);
}

/** The logger of a controller or the launcher, from its settings. */
export function controllerLogger(settings: LoggingSettings, write?: (line: string) => void): LoggerService {
  const levels = logLevels(settings.verbosity);
  if (settings.loggingFormat === 'json') {
    return new JsonLogger(levels, settings.loggingTimestampFormat ?? 'rfc3339', write);
  }
  return new ConsoleLogger({ logLevels: levels });
}

/** zap's level names for Nest's. */
const ZAP_LEVEL: Readonly<Record<LogLevel, string>> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'debug',
};

/** Longest message written (a line stays a line a collector accepts). */
const MAX_MESSAGE_CHARS = 64 * 1024;

export class JsonLogger implements LoggerService {
  private enabled: Set<LogLevel>;

  constructor(
    levels: readonly LogLevel[],
    private readonly timestampFormat: LoggingTimestampFormat = 'rfc3339',
    private readonly write: (line: string) => void = (line) => process.stdout.write(line),
  ) {
    this.enabled = new Set(levels);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.enabled = new Set(levels);
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.entry('log', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.entry('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.entry('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.entry('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.entry('fatal', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.entry('error', message, rest);
  }

  /** Nest's calls: the last string argument is the context (the logger's name); an error's stack comes before it. */
  private entry(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (!this.enabled.has(level)) return;
    const args = [...rest];
    const context = args.length > 0 && typeof args[args.length - 1] === 'string' ? (args.pop() as string) : undefined;
    const line: Record<string, unknown> = { level: ZAP_LEVEL[level], ts: timestamp(this.timestampFormat) };
    if (context) line['logger'] = context;
    if (message instanceof Error) {
      line['msg'] = bounded(message.message);
      line['error'] = bounded(message.message);
      if (message.stack) line['stacktrace'] = bounded(message.stack);
    } else line['msg'] = bounded(typeof message === 'string' ? message : (JSON.stringify(message) ?? String(message)));
    if (level === 'error' && typeof args[0] === 'string') line['stacktrace'] = bounded(args.shift() as string);
    if (args.length > 0) line['details'] = args.map((arg) => (arg instanceof Error ? arg.message : arg));
    let text: string;
    try {
      text = JSON.stringify(line);
    } catch {
      delete line['details'];
      text = JSON.stringify(line);
    }
    this.write(text + '\n');
  }
}

function bounded(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) + '...' : text;
}

/** The time now in Kyverno's --loggingtsFormat (zap's encoders; UTC). */
export function timestamp(format: LoggingTimestampFormat, now: number = Date.now()): string | number {
  switch (format) {
    case 'millis':
      return now;
    case 'nanos':
      return now * 1_000_000;
    case 'iso8601':
      return new Date(now).toISOString();
    case 'rfc3339nano':
      return new Date(now).toISOString().replace(/\.?0*Z$/, 'Z');
    case 'rfc3339':
      return new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
  }
}
