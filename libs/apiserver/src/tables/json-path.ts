/**
 * The JSONPath subset CRD printer columns use (`additionalPrinterColumns[].jsonPath`): fields
 * (`.spec.size`, `.metadata.labels['app\.kubernetes\.io/name']`), indexes (`[0]`, `[-1]`), `[*]` and
 * equality filters (`[?(@.type == "Ready")]`). kube-apiserver evaluates them with client-go's JSONPath;
 * anything outside this subset is refused when compiled, so its cells stay empty rather than wrong.
 */
import { isObject, type JsonValue } from '@edict/foundation';

/** Longer paths are refused: a CRD author controls them, and each object of a table runs them. */
export const MAX_JSON_PATH_LENGTH = 512;
const MAX_STEPS = 32;
/** Values carried between steps; `[*]` over nested lists cannot grow past this. */
const MAX_MATCHES = 10_000;

type Step =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'all' }
  | {
      readonly kind: 'filter';
      readonly path: readonly string[];
      readonly operator: '==' | '!=' | 'exists';
      readonly literal?: JsonValue;
    };

export type CompiledJsonPath = { readonly steps: readonly Step[] } | { readonly error: string };

export function compileJsonPath(path: string): CompiledJsonPath {
  if (path.length > MAX_JSON_PATH_LENGTH) return { error: `longer than ${MAX_JSON_PATH_LENGTH} characters` };
  if (!path.startsWith('.')) return { error: 'must start with "."' };
  const steps: Step[] = [];
  let at = 0;
  while (at < path.length) {
    if (steps.length === MAX_STEPS) return { error: `more than ${MAX_STEPS} steps` };
    const char = path[at];
    if (char === '.') {
      if (path[at + 1] === '.') return { error: 'recursive descent ("..") is not supported' };
      const { name, end } = readFieldName(path, at + 1);
      if (name === '' && end === path.length && at === 0) return { steps: [] };
      if (name === '') return { error: `empty field name at ${at}` };
      steps.push(name === '*' ? { kind: 'all' } : { kind: 'field', name });
      at = end;
    } else if (char === '[') {
      const close = closingBracket(path, at);
      if (close < 0) return { error: `unclosed "[" at ${at}` };
      const step = bracketStep(path.slice(at + 1, close).trim());
      if ('error' in step) return { error: `${step.error} in "${path.slice(at, close + 1)}"` };
      steps.push(step);
      at = close + 1;
    } else {
      return { error: `unexpected "${char}" at ${at}` };
    }
  }
  return { steps };
}

/** The first value the path selects, or `undefined` (missing keys select nothing, as with AllowMissingKeys). */
export function firstMatch(path: CompiledJsonPath, value: JsonValue): JsonValue | undefined {
  if ('error' in path) return undefined;
  let current: JsonValue[] = [value];
  for (const step of path.steps) {
    const next: JsonValue[] = [];
    for (const node of current) {
      apply(step, node, next);
      if (next.length >= MAX_MATCHES) break;
    }
    current = next;
    if (current.length === 0) return undefined;
  }
  return current[0];
}

function apply(step: Step, node: JsonValue, out: JsonValue[]): void {
  switch (step.kind) {
    case 'field':
      if (isObject(node) && Object.hasOwn(node, step.name)) out.push(node[step.name] as JsonValue);
      return;
    case 'index':
      if (Array.isArray(node)) {
        const item = node[step.index < 0 ? node.length + step.index : step.index];
        if (item !== undefined) out.push(item);
      }
      return;
    case 'all':
      if (Array.isArray(node)) out.push(...node);
      else if (isObject(node)) out.push(...(Object.values(node) as JsonValue[]));
      return;
    case 'filter':
      if (Array.isArray(node)) out.push(...node.filter((item) => matchesFilter(step, item)));
      return;
  }
}

function matchesFilter(step: Extract<Step, { kind: 'filter' }>, item: JsonValue): boolean {
  let value: JsonValue | undefined = item;
  for (const name of step.path) value = isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
  if (step.operator === 'exists') return value !== undefined;
  const equal = value !== undefined && value === step.literal;
  return step.operator === '==' ? equal : !equal;
}

/** A dotted field name up to the next unescaped `.` or `[`; `\.` is a literal dot. */
function readFieldName(path: string, start: number): { name: string; end: number } {
  let name = '';
  let at = start;
  while (at < path.length && path[at] !== '.' && path[at] !== '[') {
    if (path[at] === '\\' && at + 1 < path.length) at++;
    name += path[at];
    at++;
  }
  return { name, end: at };
}

/** The `]` closing the bracket at `open`, skipping quoted text and nested `(...)`. */
function closingBracket(path: string, open: number): number {
  let quote: string | undefined;
  for (let at = open + 1; at < path.length; at++) {
    const char = path[at];
    if (quote) {
      if (char === '\\') at++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === ']') return at;
  }
  return -1;
}

const QUOTED = /^(['"])(.*)\1$/s;
const FILTER = /^\?\(\s*@((?:\.[A-Za-z0-9_-]+)+)\s*(?:(==|!=)\s*(.+?))?\s*\)$/s;

function bracketStep(inside: string): Step | { error: string } {
  if (inside === '*') return { kind: 'all' };
  if (/^-?\d{1,9}$/.test(inside)) return { kind: 'index', index: Number(inside) };
  const quoted = QUOTED.exec(inside);
  if (quoted) return { kind: 'field', name: quoted[2]!.replace(/\\(.)/g, '$1') };
  const filter = FILTER.exec(inside);
  if (filter) {
    const path = filter[1]!.slice(1).split('.');
    if (filter[2] === undefined) return { kind: 'filter', path, operator: 'exists' };
    const literal = filterLiteral(filter[3]!);
    if (literal === undefined) return { error: `unsupported filter value ${filter[3]!}` };
    return { kind: 'filter', path, operator: filter[2] as '==' | '!=', literal };
  }
  return { error: 'unsupported selector (slices, unions and other filters are not served)' };
}

function filterLiteral(text: string): JsonValue | undefined {
  const quoted = QUOTED.exec(text);
  if (quoted) return quoted[2]!.replace(/\\(.)/g, '$1');
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return undefined;
}
