/**
 * Configuration from environment variables, as the controllers read it: a table maps each variable
 * to a config field and how to read it; values are parsed here, checked later by the config class's
 * class-validator decorators, and every problem names the variable it came from.
 */
import type { ValidationError } from 'class-validator';

export type VariableType = 'string' | 'int' | 'list' | 'bool';

/** Environment variable → config field, and how to read it. */
export type EnvironmentTable<T> = Readonly<Record<string, readonly [keyof T & string, VariableType]>>;

/**
 * Kyverno's command-line flag → the variable of the table beside it that implements it (a Go
 * duration flag is the variable's milliseconds). The parity table (docs/parity/settings.md) and the
 * chart's `extraArgs` are generated from these.
 */
export type KyvernoFlagTable = Readonly<Record<string, string>>;

/** The table's variables found in `env`, parsed; `problems` names each unreadable one. */
export function readEnvironment<T>(
  env: NodeJS.ProcessEnv,
  table: EnvironmentTable<T>,
): { values: Partial<Record<keyof T & string, unknown>>; problems: string[] } {
  const values: Partial<Record<keyof T & string, unknown>> = {};
  const problems: string[] = [];
  for (const [variable, [field, type]] of Object.entries(table)) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') continue;
    if (type === 'int') {
      if (!/^\d+$/.test(raw)) problems.push(`${variable}: must be a whole number, got ${JSON.stringify(raw)}`);
      else values[field] = Number(raw);
    } else if (type === 'bool') {
      if (!/^(true|false)$/i.test(raw)) problems.push(`${variable}: must be true or false, got ${JSON.stringify(raw)}`);
      else values[field] = raw.toLowerCase() === 'true';
    } else if (type === 'list') {
      values[field] = raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    } else values[field] = raw;
  }
  return { values, problems };
}

/** `<field> (<VARIABLE>): <what is wrong>` for each failed constraint. */
export function describeValidationErrors<T>(errors: readonly ValidationError[], table: EnvironmentTable<T>): string[] {
  const variableOf = (field: string) => Object.entries(table).find(([, [f]]) => f === field)?.[0];
  return errors.flatMap((error) =>
    Object.values(error.constraints ?? {}).map((text) => {
      const variable = variableOf(error.property);
      return `${error.property}${variable ? ` (${variable})` : ''}: ${text}`;
    }),
  );
}
