import type { PolicyFieldError } from '../api/types';

/**
 * The checks every CEL policy kind's schema check is made of, adding to `errors` in the words of
 * the CRD schema and Kyverno's admission check; each kind adds its own rules on top.
 */
export function specChecks(errors: PolicyFieldError[]) {
  const push = (field: string, message: string): void => {
    errors.push({ field, message });
  };
  /** An enum field: absent is fine; anything but one of `allowed` is refused. */
  const oneOf = (field: string, value: unknown, allowed: readonly string[]): void => {
    if (value === undefined) return;
    if (typeof value !== 'string' || !allowed.includes(value)) {
      push(
        field,
        `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
      );
    }
  };
  /** A list field: absent or null reads as []; anything but a list is refused. */
  const list = (field: string, value: unknown): unknown[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      push(field, `Invalid value: ${JSON.stringify(value)}: must be a list`);
      return [];
    }
    return value;
  };
  return { push, oneOf, list };
}
