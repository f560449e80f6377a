import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * Builds an options class from plain input and checks it with its class-validator decorators.
 * Unknown fields are problems too, so a misspelt option never goes unnoticed. Each problem reads
 * `<field>: <what is wrong>`.
 */
export function validateOptions<T extends object>(
  type: ClassConstructor<T>,
  input: object = {},
): { options: T; problems: string[] } {
  const options = plainToInstance(type, input ?? {});
  const errors = validateSync(options, { forbidUnknownValues: true, whitelist: true, forbidNonWhitelisted: true });
  const problems = errors.map((error) =>
    error.constraints
      ? `${error.property}: ${Object.values(error.constraints).join('; ')}`
      : `${error.property}: invalid`,
  );
  return { options, problems };
}
