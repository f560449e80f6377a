import { ConsoleLogger } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { controllerLogger, logLevels, timestamp } from './controller-logger';

describe("Kyverno's logging settings", () => {
  it('verbosity: errors, warnings and information always, debug from 4, verbose from 6', () => {
    expect(logLevels(0)).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(logLevels(2)).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(logLevels(4)).toEqual(['fatal', 'error', 'warn', 'log', 'debug']);
    expect(logLevels(6)).toEqual(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
  });

  it('text keeps the console format', () => {
    expect(controllerLogger({ loggingFormat: 'text', verbosity: 2 })).toBeInstanceOf(ConsoleLogger);
  });

  it("json writes one object per line with zap's keys, and drops what the verbosity hides", () => {
    const lines: string[] = [];
    const logger = controllerLogger({ loggingFormat: 'json', verbosity: 2 }, (line) => lines.push(line));
    logger.log('policy cache ready', 'PolicyCache');
    logger.debug?.('hidden at 2', 'PolicyCache');
    logger.error('review failed', 'Error: boom\n    at x', 'Admission');
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const [info, error] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(info).toMatchObject({ level: 'info', logger: 'PolicyCache', msg: 'policy cache ready' });
    expect(info!['ts']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(error).toMatchObject({
      level: 'error',
      logger: 'Admission',
      msg: 'review failed',
      stacktrace: 'Error: boom\n    at x',
    });
  });

  it("timestamps in Kyverno's --loggingtsFormat formats", () => {
    const at = Date.UTC(2026, 10, 29, 22, 57, 39, 120);
    expect(timestamp('rfc3339', at)).toBe('2026-11-29T22:57:39Z');
    expect(timestamp('rfc3339nano', at)).toBe('2026-11-29T22:57:39.12Z');
    expect(timestamp('iso8601', at)).toBe('2026-11-29T22:57:39.120Z');
    expect(timestamp('millis', at)).toBe(at);
    expect(timestamp('nanos', at)).toBe(at * 1_000_000);
  });
});
