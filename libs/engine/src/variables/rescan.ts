import { type JsonValue, goJson } from '@edict/foundation';

/**
 * Kyverno's own algorithm for one string, used when the parsed-tree evaluation could disagree with
 * it (irregular shapes, substituted text containing braces or backslashes, errors whose order
 * matters). Each pass finds the innermost variables (`{{...}}` whose content has no `{{`, optionally
 * with single-level `{...}` groups, not preceded by `\`), substitutes them, and the search repeats on
 * the result; a string that is exactly one variable returns the variable's value with its type.
 * Finally `\{{...}}` escapes lose their backslash.
 */
const VARIABLES = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
const VARIABLE_AT_START = /^\{\{(?:\{[^{}]*\}|[^{}])*\}\}/;
const ESCAPED_VARIABLES = /\\\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;

/** Kyverno would loop forever on self-reproducing values; we stop and report instead. */
const MAX_PASSES = 1000;

export type VariableResolver = (variable: string) => JsonValue;

/**
 * `checkLength`, when given, sees the length of each text about to be built and throws to stop a
 * substitution whose text grows too large (references to a large value, repeated).
 */
export function rescanSubstitute(
  source: string,
  resolve: VariableResolver,
  checkLength?: (length: number) => void,
): JsonValue | typeof NO_PROGRESS {
  let value = source;
  let matches = value.match(VARIABLES);
  let passes = 0;
  // One value referenced many times is written out once.
  const texts = new WeakMap<object, string>();
  const textOf = (resolved: JsonValue): string => {
    if (resolved === null || typeof resolved !== 'object') return interpolationText(resolved);
    let text = texts.get(resolved);
    if (text === undefined) texts.set(resolved, (text = interpolationText(resolved)));
    return text;
  };
  while (matches !== null && matches.length > 0) {
    if (++passes > MAX_PASSES) return NO_PROGRESS;
    const originalPattern = value;
    // Every variable of the pass ends up in the text (one per pass, the others on later passes):
    // their insertions together are what the text will grow to.
    let projected = originalPattern.length;
    for (const match of matches) {
      const initial = VARIABLE_AT_START.test(match);
      const variableText = initial ? match : match.slice(1);
      const resolved = resolve(variableText);
      if (originalPattern === variableText) return resolved;
      const prefix = initial ? '' : match.charAt(0);
      const inserted = textOf(resolved);
      projected += inserted.length - variableText.length;
      checkLength?.(projected);
      // Kyverno replaces inside the pattern as it was at the start of the pass (only the last
      // replacement of a pass survives; the others are found again on the next pass).
      value = replaceFirst(originalPattern, prefix + variableText, prefix + inserted);
    }
    matches = value.match(VARIABLES);
  }
  return value.replace(ESCAPED_VARIABLES, (escaped) => escaped.slice(1));
}

export const NO_PROGRESS = Symbol('no-progress');

/** `{{ x }}` → `x`: Kyverno strips every `{{`/`}}` pair and surrounding whitespace. */
export function variableExpression(variableText: string): string {
  return variableText.split('{{').join('').split('}}').join('').trim();
}

/** How a substituted value reads inside a larger string: strings raw, everything else as JSON. */
export function interpolationText(value: JsonValue): string {
  return typeof value === 'string' ? value : goJson(value);
}

function replaceFirst(text: string, search: string, replacement: string): string {
  const at = text.indexOf(search);
  return at < 0 ? text : text.slice(0, at) + replacement + text.slice(at + search.length);
}

/** Every variable Kyverno's first pass would see, as expressions (used for irregular strings). */
export function scanVariableExpressions(source: string): string[] {
  const matches = source.match(VARIABLES) ?? [];
  return matches.map((match) => variableExpression(VARIABLE_AT_START.test(match) ? match : match.slice(1)));
}
