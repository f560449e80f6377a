import { compileCel, type CelProgram, type CelVariables } from '@edict/cel';
import { isObject, parseDocuments, type JsonValue } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import { indexedVariableReferences, variableReferences } from '../compile/references';

/**
 * A `spec.generate[].template` compiled: YAML documents, each a resource, whose string values may
 * hold `(( expression ))` placeholders when `interpolate: cel`. A placeholder that is the whole
 * value is spliced as its CEL value (a map, a list, a scalar); one inside a longer string must give
 * a scalar, written into the string. Placeholders in mapping keys are not supported (as in Kyverno).
 */
export interface CompiledTemplate {
  readonly documents: readonly TemplateNode[];
  /** The `variables.<name>` its placeholders read. */
  readonly reads: readonly string[];
}

export type TemplateNode =
  | { readonly literal: JsonValue }
  | { readonly splice: CelProgram }
  | { readonly parts: readonly (string | CelProgram)[] }
  | { readonly map: readonly (readonly [string, TemplateNode])[] }
  | { readonly list: readonly TemplateNode[] };

const OPEN = '((';
const CLOSE = '))';

/** Compiles a template; problems are pushed at `field` (`spec.generate[0].template.value`). */
export function compileTemplate(
  value: string,
  interpolate: boolean,
  variables: CelVariables,
  field: string,
  declared: ReadonlySet<string>,
  errors: PolicyFieldError[],
): CompiledTemplate | undefined {
  const invalid = (message: string) =>
    errors.push({ field, message: `Invalid value: ${JSON.stringify(value)}: ${message}` });
  const parsed = parseDocuments(value, field);
  const failure = parsed.errors.find((diagnostic) => diagnostic.severity !== 'warning');
  if (failure) {
    invalid(`failed to parse YAML: ${failure.message}`);
    return undefined;
  }
  const reads = new Set<string>();
  const compileExpression = (source: string): CelProgram => {
    const unknown = variableReferences(source).find((name) => !declared.has(name));
    if (unknown !== undefined)
      throw new Error(`invalid placeholder expression ${JSON.stringify(source)}: undefined field '${unknown}'`);
    for (const name of [...variableReferences(source), ...indexedVariableReferences(source)]) reads.add(name);
    try {
      return compileCel(source, variables, 'any');
    } catch (error) {
      throw new Error(`invalid placeholder expression ${JSON.stringify(source)}: ${(error as Error).message}`);
    }
  };
  const compileNode = (node: JsonValue): TemplateNode => {
    if (!interpolate || !containsPlaceholder(node)) return { literal: node };
    if (typeof node === 'string') {
      const segments = scan(node);
      if (segments.length === 1 && typeof segments[0] !== 'string')
        return { splice: compileExpression(segments[0]!.expression) };
      return {
        parts: segments.map((segment) =>
          typeof segment === 'string' ? segment : compileExpression(segment.expression),
        ),
      };
    }
    if (Array.isArray(node)) return { list: node.map(compileNode) };
    if (isObject(node)) {
      return {
        map: Object.entries(node).map(([key, item]) => {
          if (key.includes(OPEN))
            throw new Error(
              `placeholders are not supported in mapping keys (${JSON.stringify(key)}); use a whole-value placeholder on the parent field instead`,
            );
          return [key, compileNode(item)] as const;
        }),
      };
    }
    return { literal: node };
  };
  const documents: TemplateNode[] = [];
  try {
    for (const document of parsed.documents) {
      if (document.value === null) continue;
      if (!isObject(document.value))
        throw new Error(`document ${document.index + 1} must be a mapping describing a resource`);
      documents.push(compileNode(document.value));
    }
  } catch (error) {
    invalid((error as Error).message);
    return undefined;
  }
  if (documents.length === 0) {
    invalid('template must contain at least one YAML document');
    return undefined;
  }
  return { documents, reads: [...reads] };
}

function containsPlaceholder(node: JsonValue): boolean {
  if (typeof node === 'string') return node.includes(OPEN);
  if (Array.isArray(node)) return node.some(containsPlaceholder);
  if (isObject(node))
    return Object.entries(node).some(([key, item]) => key.includes(OPEN) || containsPlaceholder(item));
  return false;
}

/**
 * Splits a string into literal text and `(( expression ))` placeholders. The placeholder ends at the
 * first `))` outside the expression's own parentheses and string literals.
 */
export function scan(text: string): (string | { expression: string })[] {
  const out: (string | { expression: string })[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    if (!text.startsWith(OPEN, i)) {
      literal += text[i];
      i += 1;
      continue;
    }
    let depth = 0;
    let j = i + OPEN.length;
    let quote: string | undefined;
    let end = -1;
    for (; j < text.length; j++) {
      const char = text[j]!;
      if (quote) {
        if (char === '\\') j += 1;
        else if (char === quote) quote = undefined;
        continue;
      }
      if (char === '"' || char === "'") quote = char;
      else if (char === '(') depth += 1;
      else if (char === ')') {
        if (depth === 0 && text.startsWith(CLOSE, j)) {
          end = j;
          break;
        }
        depth -= 1;
      }
    }
    if (end < 0) throw new Error(`unterminated placeholder in ${JSON.stringify(text)}`);
    const expression = text.slice(i + OPEN.length, end).trim();
    if (expression === '') throw new Error(`empty placeholder in ${JSON.stringify(text)}`);
    if (literal) out.push(literal);
    literal = '';
    out.push({ expression });
    i = end + CLOSE.length;
  }
  if (literal) out.push(literal);
  return out;
}
