import { functionCatalogue, type FunctionEntry } from '@edict/jmespath';
import { compareCodePoints } from '@edict/foundation';

/** Kyverno's `FunctionEntry.String()`: `name(arg|types, ...) returns (note)`. */
export function signature(entry: FunctionEntry, withNote: boolean): string {
  const args = entry.arguments.map((types) => types.join('|')).join(', ');
  const text = `${entry.name}(${args}) ${entry.returns.join(',')}`;
  return withNote && entry.note !== '' ? `${text} (${entry.note})` : text;
}

/**
 * `jp function [name...]`: every function (or the named ones), sorted as Kyverno sorts them (by
 * their full signature text), each as `Name:`, `Signature:` and `Note:` lines and a blank line.
 */
export function functionsCommand(names: readonly string[]): string {
  const wanted = new Set(names);
  const entries = functionCatalogue().sort((a, b) => compareCodePoints(signature(a, true), signature(b, true)));
  let out = '';
  for (const entry of entries) {
    if (wanted.size > 0 && !wanted.has(entry.name)) continue;
    out += `Name: ${entry.name}\n  Signature: ${signature(entry, false)}\n`;
    if (entry.note !== '') out += `  Note:      ${entry.note}\n`;
    out += '\n';
  }
  return out;
}
