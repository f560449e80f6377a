import { describe, expect, it } from 'vitest';
import { any, arr, bool, either, int, intOrString, lazy, map, obj, str, type Schema } from './schema-dsl';
import { toOpenApiSchema } from './schema-openapi';

describe('toOpenApiSchema', () => {
  it('keeps types, enums, bounds, defaults and descriptions', () => {
    expect(
      toOpenApiSchema(
        obj(
          {
            action: str({ enum: ['Audit', 'Enforce'], default: 'Audit', description: 'What to do.' }),
            name: str({ maxLength: 63, pattern: /^[a-z]+$/ }),
            timeout: int({ min: 1, max: 30 }),
            on: bool({ default: true }),
            port: intOrString({ nullable: true }),
          },
          { required: ['name'], description: 'A thing.' },
        ),
      ),
    ).toEqual({
      description: 'A thing.',
      type: 'object',
      required: ['name'],
      properties: {
        action: { default: 'Audit', description: 'What to do.', enum: ['Audit', 'Enforce'], type: 'string' },
        name: { maxLength: 63, pattern: '^[a-z]+$', type: 'string' },
        timeout: { maximum: 30, minimum: 1, type: 'integer' },
        on: { default: true, type: 'boolean' },
        port: { nullable: true, 'x-kubernetes-int-or-string': true },
      },
    });
  });

  it('keeps free-form values, open objects and both-forms fields as preserve-unknown-fields', () => {
    expect(toOpenApiSchema(any({ description: 'Anything.' }))).toEqual({
      description: 'Anything.',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(toOpenApiSchema(either(arr(str()), obj({ a: str() })))).toEqual({
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(toOpenApiSchema(obj({ a: str() }, { open: true }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('turns maps into additionalProperties, never beside properties', () => {
    expect(toOpenApiSchema(map(str()))).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    const both: Schema = { type: 'object', fields: { a: str() }, values: int() };
    expect(toOpenApiSchema(both)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('cuts a recursion at its first step, so the schema is finite', () => {
    const node: Schema = obj({ name: str(), children: arr(lazy(() => node)) });
    expect(toOpenApiSchema(node)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true } },
      },
    });
  });

  it('states "exactly one of" as a oneOf of required fields', () => {
    expect(toOpenApiSchema(obj({ a: str(), b: str() }, { oneOf: ['a', 'b'] }))).toMatchObject({
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    });
  });
});
