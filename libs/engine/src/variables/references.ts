import { type JsonValue, goValueText, isAbsolute, joinPath } from '@edict/foundation';
import { childPath, rewriteDocument } from './document-walk';
import { VariableSubstitutionError } from './errors';

/**
 * `$(path)` references point at another value of the same document (typically the rule's pattern):
 * `$(./../name)` is resolved relative to the string holding it, `$(/spec/x)` from the document root,
 * and an operator prefix (`$(>=./../min)`) is kept in front of the referenced value. Kyverno
 * substitutes references across the whole document before any `{{ }}` variable, always against the
 * original document; `\$(...)` is an escape (backslash removed).
 */
const REFERENCES = /^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)/g;
const ESCAPED_REFERENCES = /\\\$\(.[^ ]*\)/g;
const OPERATORS = ['>=', '<=', '>', '<', '!'] as const;

export function substituteReferences(document: JsonValue, basePath: string): JsonValue {
  if (!containsReference(document)) return document;
  return rewriteDocument(document, basePath, {
    leaf: (value, path) => (typeof value === 'string' ? substituteInString(value, path, document, basePath) : value),
    key: (key, parentPath) => {
      const result = substituteInString(key, parentPath, document, basePath);
      return typeof result === 'string' ? result : key;
    },
  });
}

export function containsReference(value: JsonValue): boolean {
  if (typeof value === 'string') return value.includes('$(');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsReference);
  return Object.keys(value).some((key) => key.includes('$(') || containsReference(value[key] as JsonValue));
}

function substituteInString(value: string, path: string, document: JsonValue, basePath: string): string {
  if (!value.includes('$(')) return value;
  let result = value;
  for (const match of value.match(REFERENCES) ?? []) {
    const initial = match.startsWith('$(');
    const reference = initial ? match : match.slice(1);
    const resolved = resolveReference(document, basePath, reference, path);
    if (resolved === null || resolved === undefined) {
      throw new VariableSubstitutionError(
        `got nil resolved variable ${reference} at path ${path}: <nil>`,
        reference,
        path,
      );
    }
    if (typeof resolved !== 'string') {
      throw new VariableSubstitutionError(
        `NotResolvedReferenceErr,reference ${reference} not resolved at path ${path}`,
        reference,
        path,
      );
    }
    const at = result.indexOf(match);
    if (at >= 0)
      result = result.slice(0, at) + (initial ? '' : match.charAt(0)) + resolved + result.slice(at + match.length);
  }
  for (const escaped of result.match(ESCAPED_REFERENCES) ?? []) result = result.split(escaped).join(escaped.slice(1));
  return result;
}

function resolveReference(
  document: JsonValue,
  basePath: string,
  reference: string,
  path: string,
): JsonValue | undefined {
  let target = trimChars(reference, '$()');
  const operator = target.length < 2 ? '' : (OPERATORS.find((op) => target.startsWith(op)) ?? '');
  target = target.slice(operator.length);
  if (target.length === 0) {
    throw new VariableSubstitutionError(
      `failed to resolve ${reference} at path ${path}: expected path, found empty reference`,
      reference,
      path,
    );
  }
  target = isAbsolute(target) ? target : joinPath(path, target);
  const found = valueAtPath(document, basePath, target);
  if (operator === '') return found;
  if (typeof found === 'string') return operator + found;
  if (typeof found === 'number') return operator + (Number.isInteger(found) ? String(found) : found.toFixed(6));
  throw new VariableSubstitutionError(
    `failed to resolve ${reference} at path ${path}: incorrect expression: operator ${operator} does not match with value ${goValueText(found)}`,
    reference,
    path,
  );
}

/**
 * Kyverno walks every leaf and key of the document and keeps the last one whose anchor-free path
 * equals the target; a path naming an object therefore yields one of its keys, an array nothing.
 */
function valueAtPath(document: JsonValue, basePath: string, target: string): JsonValue | undefined {
  let found: JsonValue | undefined;
  const visit = (value: JsonValue, path: string): void => {
    if (value !== null && typeof value === 'object') {
      if (Array.isArray(value)) {
        value.forEach((item, index) => visit(item, childPath(path, index)));
        return;
      }
      const matchesHere = removeAnchorsFromPath(path) === target;
      for (const key of Object.keys(value)) {
        if (matchesHere) found = key;
        visit(value[key] as JsonValue, childPath(path, key));
      }
      return;
    }
    if (removeAnchorsFromPath(path) === target) found = value;
  };
  visit(document, basePath);
  return found;
}

const ANCHOR = /^[+<=X^]?\((.+)\)$/s;

/** `/spec/(name)/=(image)` → `/spec/name/image`, cleaned like Go's path.Join. */
export function removeAnchorsFromPath(path: string): string {
  const parts = path.split('/');
  if (parts[0] === '') parts.shift();
  const keys = parts.map((part) => ANCHOR.exec(part)?.[1] ?? part);
  const joined = joinPath(...keys);
  return isAbsolute(path) ? `/${joined}` : joined;
}

function trimChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text.charAt(start))) start++;
  while (end > start && chars.includes(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}
