import type { Validation } from '../policy/types';

/**
 * Validate rule types this engine does not evaluate. A rule of such a type must not vanish from the
 * results (a CLI test would silently count it as passed), so it answers `error` with this reason.
 * (`manifests` has its own handler in `./manifests`, `cel` in `./cel`.)
 */
const UNSUPPORTED: ReadonlyArray<readonly [string, string]> = [['assert', 'assertion trees (validate.assert)']];

/** The unsupported field and why the rule cannot be evaluated; undefined when a supported validation is present. */
export function unsupportedValidation(validation: Validation): { field: string; reason: string } | undefined {
  const supported =
    validation.pattern !== undefined ||
    validation.anyPattern !== undefined ||
    validation.deny !== undefined ||
    validation.foreach !== undefined ||
    validation.podSecurity !== undefined;
  if (supported) return undefined;
  for (const [field, what] of UNSUPPORTED) {
    // `assert` is not in the typed Validation (kyverno-json trees), so look fields up by name.
    const value = (validation as Readonly<Record<string, unknown>>)[field];
    if (value !== undefined && value !== null) return { field, reason: `${what} is not supported by this engine` };
  }
  return undefined;
}
