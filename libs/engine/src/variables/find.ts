import type { JsonValue } from '@edict/foundation';
import { scanVariableExpressions } from './rescan';
import { getTemplate, type ContentPart, type TemplatePart } from './template';

/** True when some string or object key in `value` holds a `{{ }}` variable that would be substituted. */
export function hasVariables(value: JsonValue): boolean {
  return someString(value, (text) => expressionsIn(text).length > 0);
}

/**
 * The expressions of all variables in `value` (strings and keys), trimmed, in document order with
 * nested variables before the variable that contains them; an outer variable is reported with its
 * nested `{{ }}` text as written. Escaped variables are not reported (their nested ones are).
 */
export function findVariables(value: JsonValue): string[] {
  const found: string[] = [];
  someString(value, (text) => {
    found.push(...expressionsIn(text));
    return false;
  });
  return found;
}

function expressionsIn(text: string): string[] {
  const template = getTemplate(text);
  if (template.kind === 'plain') return [];
  if (template.kind === 'irregular') return scanVariableExpressions(text);
  const found: string[] = [];
  collect(template.parts, found);
  return found;
}

function collect(parts: readonly (TemplatePart | ContentPart)[], found: string[]): void {
  for (const part of parts) {
    if (part.kind === 'text') continue;
    collect(part.content, found);
    if (part.kind === 'variable') found.push(part.source.slice(2, -2).trim());
  }
}

function someString(value: JsonValue, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return value.includes('{{') && test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => someString(item, test));
  return Object.keys(value).some(
    (key) => (key.includes('{{') && test(key)) || someString(value[key] as JsonValue, test),
  );
}
