/** Field errors worded as Kubernetes' field.Error bodies (the field is kept apart). */

export interface FieldError {
  /** Like `spec.validations[0].expression`. */
  field: string;
  /** Like `Invalid value: "x": compilation failed: ...`. */
  message: string;
}

export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join(', ');
}

const quote = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({
    field,
    message: detail ? `Required value: ${detail}` : 'Required value',
  }),
  invalid: (field: string, value: unknown, detail: string): FieldError => ({
    field,
    message: `Invalid value: ${quote(value)}: ${detail}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({ field, message: `Duplicate value: ${quote(value)}` }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError => ({
    field,
    message: `Unsupported value: ${quote(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  tooMany: (field: string, count: number, max: number): FieldError => ({
    field,
    message: `Too many: ${count}: must have at most ${max} items`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({ field, message: `Forbidden: ${detail}` }),
};

/** `a.b[0].c` from a base path and the segments after it. */
export function at(base: string, ...segments: (string | number)[]): string {
  let out = base;
  for (const segment of segments) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out;
}
