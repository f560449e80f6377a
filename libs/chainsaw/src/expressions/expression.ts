/**
 * The expression syntax of assertion trees and templates (kyverno-json's): a key or a string value
 * may be `~name.(expr)` (iterate over the projection, the index or key bound to `$name`),
 * `(expr) -> name` (bind the projection to `$name`), `(expr)` (a JMESPath expression, `(jp; expr)`
 * naming the engine), or `\(text)\` (an escaped literal).
 */
export interface ParsedExpression {
  readonly foreach: boolean;
  readonly foreachName?: string;
  /** Name of a binding registered with the projected value (`-> name`). */
  readonly binding?: string;
  /** `jp` when the statement is an expression to evaluate; undefined for a literal key or value. */
  readonly engine?: string;
  readonly statement: string;
}

const FOREACH = /^~(\w+)?\.(.*)$/s;
const BINDING = /^(.*?)\s*->\s*(\w+)$/s;
const ESCAPED = /^\\(.+)\\$/s;
// Without the s flag, as kyverno-json's Go regexp: a string spanning lines (a CEL expression a
// policy writes between parentheses, folded over lines) is a literal, never a JMESPath expression.
const ENGINE = /^\((?:(\w+);)?(.+)\)$/;

export function parseExpression(text: string): ParsedExpression {
  let rest = text;
  let foreach = false;
  let foreachName: string | undefined;
  let binding: string | undefined;
  let engine: string | undefined;
  const each = FOREACH.exec(rest);
  if (each) {
    foreach = true;
    foreachName = each[1] || undefined;
    rest = each[2]!;
  }
  const bound = BINDING.exec(rest);
  if (bound) {
    binding = bound[2];
    rest = bound[1]!;
  }
  const escaped = ESCAPED.exec(rest);
  if (escaped) {
    rest = escaped[1]!;
  } else {
    const expression = ENGINE.exec(rest);
    if (expression) {
      engine = expression[1] ?? 'jp';
      rest = expression[2]!;
    }
  }
  return { foreach, foreachName, binding, engine, statement: rest };
}

/** True when a string is an expression to evaluate (`(...)`), as opposed to a literal. */
export function isExpression(text: string): boolean {
  return parseExpression(text).engine !== undefined;
}
