/**
 * Nesting depth of YAML and JSON documents. Far deeper than any Kubernetes object, nesting only
 * serves to exhaust the stack of the readers (the YAML parser's gives out near 800 levels, after
 * seconds of work for flow collections) and of every recursive walk after them, so it is refused
 * before parsing where brackets show it, and after parsing for block (indented) collections.
 */
import { isObject, type JsonValue } from '../json';

/** The deepest nesting read: some ten times what real manifests, CRD schemas included, use. */
export const MAX_NESTING_DEPTH = 256;

const SPACE = new Set([' ', '\t', '\r', '\n']);
/** Characters after which a quote opens a quoted scalar. */
const TOKEN_START = new Set([...SPACE, '[', '{', ',', ':']);

export interface DeepNesting {
  /** 0-based YAML document (counted by `---` lines before the place). */
  document: number;
  /** 1-based line where the nesting passes the limit. */
  line: number;
}

/**
 * Where flow collections (`[`, `{`: all of JSON) first nest deeper than `limit`, scanning the text
 * once; undefined when they never do. Brackets inside quoted scalars and comments do not count; a
 * stray closing bracket never takes the depth below zero.
 */
export function deepFlowNesting(text: string, limit = MAX_NESTING_DEPTH): DeepNesting | undefined {
  let depth = 0;
  let line = 1;
  let document = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\n') {
      line++;
      lineStart = true;
      continue;
    }
    if (lineStart && text.startsWith('---', i)) document++;
    const previous = i === 0 ? '\n' : text[i - 1]!;
    lineStart = false;
    const atToken = TOKEN_START.has(previous);
    if (char === '#' && SPACE.has(previous)) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if ((char === '"' || char === "'") && atToken) {
      // A quoted scalar: skip to its end (a doubled quote escapes in single quotes, a backslash in double).
      for (i++; i < text.length; i++) {
        const inner = text[i]!;
        if (inner === '\n') line++;
        if (char === '"' && inner === '\\') i++;
        else if (inner === char) {
          if (char === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
    } else if (char === '[' || char === '{') {
      if (++depth > limit) return { document, line };
    } else if ((char === ']' || char === '}') && depth > 0) depth--;
  }
  return undefined;
}

/** The path (`a.b[0]`) at which `value` nests deeper than `limit`, walked without recursion. */
export function deepValuePath(value: JsonValue, limit = MAX_NESTING_DEPTH): string | undefined {
  const stack: { value: JsonValue; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop()!;
    if (!Array.isArray(current) && !isObject(current)) continue;
    if (depth >= limit) return shortPath(path);
    if (Array.isArray(current))
      current.forEach((item, i) => stack.push({ value: item, depth: depth + 1, path: `${path}[${i}]` }));
    else
      for (const key of Object.keys(current))
        stack.push({ value: current[key]!, depth: depth + 1, path: path ? `${path}.${key}` : key });
  }
  return undefined;
}

function shortPath(path: string): string {
  if (path === '') return '(the document)';
  return path.length > 120 ? `...${path.slice(-100).replace(/^\./, '')}` : path;
}

export function nestingMessage(limit = MAX_NESTING_DEPTH): string {
  return `nesting deeper than ${limit} levels`;
}
