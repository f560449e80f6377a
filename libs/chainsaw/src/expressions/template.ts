/**
 * Chainsaw's resource templating: every string leaf written as an expression (`(...)`) is replaced
 * by its value, evaluated with the leaf's own value as `@`; keys are never templated (so Kyverno
 * anchors such as `(name)` in policies stay as they are).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { Bindings } from './bindings';
import { parseExpression } from './expression';
import { ExpressionError, evaluateJmesPath } from './jmespath';

export function templateValue(value: JsonValue, bindings: Bindings, path = ''): JsonValue {
  if (Array.isArray(value)) return value.map((item, i) => templateValue(item, bindings, `${path}[${i}]`));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = templateValue(item, bindings, path === '' ? key : `${path}.${key}`);
    }
    return out;
  }
  if (typeof value !== 'string') return value;
  return evaluateString(value, value, bindings, path);
}

/** A string that may be an expression: its value when it is one, the text otherwise. */
export function evaluateString(text: string, data: JsonValue, bindings: Bindings, path = ''): JsonValue {
  const expression = parseExpression(text);
  if (expression.engine === undefined) return text;
  if (expression.engine !== 'jp' && expression.engine !== 'default') {
    throw new ExpressionError(`${path || text}: the ${expression.engine} expression engine is not supported`);
  }
  try {
    return evaluateJmesPath(expression.statement, data, bindings);
  } catch (error) {
    if (error instanceof ExpressionError && path) throw new ExpressionError(`${path}: ${error.message}`);
    throw error;
  }
}

/** Like evaluateString, for fields that must end up a string (file names, refs, env values). */
export function evaluateToString(text: string, bindings: Bindings, field: string): string {
  const value = evaluateString(text, null, bindings, field);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new ExpressionError(`${field}: expected a string, the expression ${text} gave ${JSON.stringify(value)}`);
}
