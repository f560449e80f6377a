/**
 * The field errors Kyverno's pod-security-admission fork attaches to each failing check. They
 * drive both the rule message and the `restrictedField`/`values` exclusions.
 *
 * `badValue` follows the Go value the fork stores: '' when none was recorded (Required errors and
 * Forbidden errors without a value), otherwise a string, boolean, integer or list of strings.
 */
export type BadValue = string | boolean | number | string[];

export interface FieldError {
  type: 'Forbidden' | 'Required';
  field: string;
  badValue: BadValue;
}

export function forbidden(field: string, badValue: BadValue = ''): FieldError {
  return { type: 'Forbidden', field, badValue };
}

export function required(field: string): FieldError {
  return { type: 'Required', field, badValue: '' };
}

/** Go's `%+v` of the stored value. */
function formatGoValue(value: BadValue): string {
  return Array.isArray(value) ? `[${value.join(' ')}]` : String(value);
}

/**
 * One error as Kyverno prints it in the rule message: Forbidden errors that carry a value read
 * "<field> is forbidden, forbidden values found: <value>"; others use the apimachinery wording
 * "<field>: Forbidden" / "<field>: Required value".
 */
export function formatFieldError(error: FieldError): string {
  const hasValue = error.badValue !== '';
  if (error.type === 'Forbidden') {
    return hasValue
      ? `${error.field} is forbidden, forbidden values found: ${formatGoValue(error.badValue)}`
      : `${error.field}: Forbidden`;
  }
  return `${error.field}: Required value`;
}

/** The values an exclusion's `values` are compared against (Kyverno's extractBadValues). */
export function badValueStrings(error: FieldError): string[] {
  const value = error.badValue;
  if (Array.isArray(value)) return value;
  if (value === '') return [];
  return [String(value)];
}
