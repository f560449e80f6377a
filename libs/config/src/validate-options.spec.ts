import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { validateOptions } from './validate-options';

class Example {
  @IsString()
  name = 'default-name';

  @IsOptional()
  @IsInt()
  @Min(1)
  replicas?: number;
}

describe('validateOptions', () => {
  it('fills class defaults and accepts valid input', () => {
    const { options, problems } = validateOptions(Example, { replicas: 3 });
    expect(problems).toEqual([]);
    expect(options).toBeInstanceOf(Example);
    expect(options).toMatchObject({ name: 'default-name', replicas: 3 });
  });

  it('names every bad field, unknown fields included', () => {
    const { problems } = validateOptions(Example, { name: 7, replicas: 0, replcias: 2 });
    expect([...problems].sort()).toEqual([
      'name: name must be a string',
      'replcias: property replcias should not exist',
      'replicas: replicas must not be less than 1',
    ]);
  });
});
