import { type JsonValue, goFloat32F } from '@edict/foundation';

/** Kyverno's `ifaceToString`: strings as is, numbers as float32 text, booleans as words. */
export function scalarToString(value: JsonValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFloat32F(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}
