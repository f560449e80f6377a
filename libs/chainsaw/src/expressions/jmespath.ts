/**
 * JMESPath for chainsaw expressions, on the engine's interpreter (Kyverno's functions). Bindings
 * reach the expression as `let` variables; chainsaw's own functions that Kyverno lacks are
 * rewritten onto Kyverno equivalents, so nothing chainsaw-specific enters the engine's function
 * table (policies must not see them).
 */
import { compileJmesPath } from '@edict/jmespath';
import { type JsonValue, errorMessage } from '@edict/foundation';
import type { Bindings } from './bindings';

export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/** Go's strings.TrimSpace cut set (ASCII whitespace), as a JMESPath JSON literal. */
const WHITESPACE_LITERAL = '`" \\t\\n\\r\\f\\u000b"`';
const ENV_BINDING = '__chainsaw_env';

const UNSUPPORTED = new Set([
  'k8s_get',
  'k8s_list',
  'k8s_exists',
  'k8s_resource_exists',
  'k8s_server_version',
  'x_k8s_get',
  'x_k8s_list',
  'x_k8s_exists',
  'x_k8s_resource_exists',
  'x_k8s_server_version',
  'metrics_decode',
  'x_metrics_decode',
]);

/** Longest expression accepted (expressions come from test files; keep parsing bounded). */
const MAX_EXPRESSION_LENGTH = 16 * 1024;

/**
 * Evaluates `statement` against `data` (`@`) with the bindings as `$name` variables. A missing
 * field is null, as in standard JMESPath. Throws ExpressionError with the expression in the message.
 */
export function evaluateJmesPath(statement: string, data: JsonValue, bindings: Bindings): JsonValue {
  if (statement.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`expression longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let rewritten: string;
  let usesEnv: boolean;
  try {
    ({ text: rewritten, usesEnv } = rewriteFunctions(statement));
  } catch (error) {
    throw new ExpressionError(`${statement}: ${(error as Error).message}`);
  }
  const variables = new Map<string, JsonValue>();
  for (const match of rewritten.matchAll(/\$(\w+)/g)) {
    const name = match[1]!;
    const value = bindings.get(name);
    if (value !== undefined) variables.set(name, value);
  }
  if (usesEnv) variables.set(ENV_BINDING, environment());
  const text =
    variables.size === 0
      ? rewritten
      : `let ${[...variables].map(([name, value]) => `$${name} = ${literal(value)}`).join(', ')} in (${rewritten})`;
  try {
    const result = compileJmesPath(text).evaluate(data);
    return result.found ? result.value : null;
  } catch (error) {
    const message = errorMessage(error);
    throw new ExpressionError(`failed to evaluate (${statement}): ${message.replace(text, statement)}`);
  }
}

function literal(value: JsonValue): string {
  // Backticks only occur inside JSON strings, where \u0060 is the same character.
  return '`' + JSON.stringify(value).replace(/`/g, '\\u0060') + '`';
}

function environment(): JsonValue {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * Maps chainsaw's functions onto Kyverno's: `json_parse(x)` → `parse_json(x)`,
 * `trim_space(x)` → `trim(x, whitespace)`, `env(x)` → `lookup($env, x)`. String literals are
 * skipped; the cluster functions (`x_k8s_get`, ...) are refused with a clear message.
 */
export function rewriteFunctions(statement: string): { text: string; usesEnv: boolean } {
  let usesEnv = false;
  const rewrite = (source: string): string => {
    let out = '';
    let i = 0;
    while (i < source.length) {
      const ch = source[i]!;
      if (ch === "'" || ch === '"' || ch === '`') {
        const end = skipString(source, i);
        out += source.slice(i, end);
        i = end;
        continue;
      }
      if (/[A-Za-z_]/.test(ch) && (i === 0 || !/[\w$]/.test(source[i - 1]!))) {
        let j = i;
        while (j < source.length && /\w/.test(source[j]!)) j++;
        const name = source.slice(i, j);
        let k = j;
        while (k < source.length && /\s/.test(source[k]!)) k++;
        if (source[k] === '(') {
          if (UNSUPPORTED.has(name)) throw new Error(`function ${name} is not supported by this runner`);
          if (name === 'json_parse') {
            out += 'parse_json';
            i = j;
            continue;
          }
          if (name === 'trim_space' || name === 'env') {
            const close = matchingParen(source, k);
            const inner = rewrite(source.slice(k + 1, close));
            if (name === 'trim_space') out += `trim(${inner}, ${WHITESPACE_LITERAL})`;
            else {
              usesEnv = true;
              out += `lookup($${ENV_BINDING}, ${inner})`;
            }
            i = close + 1;
            continue;
          }
        }
        out += name;
        i = j;
        continue;
      }
      out += ch;
      i++;
    }
    return out;
  };
  return { text: rewrite(statement), usesEnv };
}

function skipString(source: string, start: number): number {
  const quote = source[start];
  let i = start + 1;
  while (i < source.length) {
    if (source[i] === '\\') {
      i += 2;
      continue;
    }
    if (source[i] === quote) return i + 1;
    i++;
  }
  return source.length;
}

function matchingParen(source: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      i = skipString(source, i);
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth === 0) return i;
    }
    i++;
  }
  throw new Error('unbalanced parentheses');
}
