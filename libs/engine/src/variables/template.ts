import { BoundedCache } from '@edict/foundation';

/**
 * Parsed form of a string that may hold `{{ }}` variables.
 *
 * Kyverno finds variables with a regular expression (innermost `{{...}}` first, a `\` before `{{`
 * escapes it) and repeats the search after each substitution until nothing is left. For the usual
 * shapes that process is equivalent to evaluating a tree once: nested variables first, then the
 * enclosing expression. This module builds that tree once per distinct string; shapes where the two
 * could differ (triple braces, a `{{` that never closes, an escaped `{{` inside a variable, ...) are
 * marked `irregular` and go through the literal re-scanning algorithm instead (see rescan.ts).
 */
export type Template = PlainTemplate | IrregularTemplate | ParsedTemplate;

/** No variables and no escapes: the string is used as is. */
export interface PlainTemplate {
  readonly kind: 'plain';
}

export interface IrregularTemplate {
  readonly kind: 'irregular';
}

export interface ParsedTemplate {
  readonly kind: 'template';
  readonly parts: readonly TemplatePart[];
  /** Set when the whole string is one variable: the result keeps the variable's JSON type. */
  readonly single: VariablePart | undefined;
  /** Two or more variables and nothing else (affects Kyverno's typing when a variable is ''). */
  readonly onlyVariables: boolean;
}

export type TemplatePart = TextPart | VariablePart | EscapedPart;

export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
}

export interface VariablePart {
  readonly kind: 'variable';
  /** Text between the braces, with nested variables as parts. */
  readonly content: readonly ContentPart[];
  /** Original `{{...}}` text, for reporting. */
  readonly source: string;
}

/** `\{{...}}`: printed as `{{...}}` (backslash dropped) after its nested variables are substituted. */
export interface EscapedPart {
  readonly kind: 'escaped';
  readonly content: readonly ContentPart[];
}

export type ContentPart = TextPart | VariablePart;

const PLAIN: PlainTemplate = { kind: 'plain' };
const IRREGULAR: IrregularTemplate = { kind: 'irregular' };

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const BACKSLASH = 0x5c;

// Templates are mostly policy text (messages can run long); resource data brings short ones.
const cache = new BoundedCache<Template>(8192, 8 * 1024);

/** The parsed template for a string, from the cache when it was seen before. */
export function getTemplate(source: string): Template {
  if (!source.includes('{{')) return PLAIN;
  let template = cache.get(source);
  if (template === undefined) {
    template = parseTemplate(source);
    cache.set(source, template);
  }
  return template;
}

export function parseTemplate(source: string): Template {
  if (!source.includes('{{')) return PLAIN;
  // Runs of three braces are where regex matching and tree parsing can disagree.
  if (source.includes('{{{') || source.includes('}}}')) return IRREGULAR;
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < source.length) {
    if (source.charCodeAt(i) === OPEN && source.charCodeAt(i + 1) === OPEN) {
      const parsed = parseVariable(source, i);
      if (parsed === undefined) return IRREGULAR;
      const escaped = i > 0 && source.charCodeAt(i - 1) === BACKSLASH;
      if (escaped) text = text.slice(0, -1);
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      parts.push(escaped ? { kind: 'escaped', content: parsed.part.content } : parsed.part);
      i = parsed.end;
      continue;
    }
    text += source[i];
    i++;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  const first = parts[0];
  const single = parts.length === 1 && first?.kind === 'variable' ? first : undefined;
  const onlyVariables = parts.length > 1 && parts.every((part) => part.kind === 'variable');
  return { kind: 'template', parts, single, onlyVariables };
}

/**
 * Parses `{{...}}` starting at `start`. Content may hold plain characters, single-level `{...}`
 * groups (JMESPath hashes/literals) and nested variables; anything else means Kyverno's regex
 * would not see a variable here, and the caller falls back to the irregular path.
 */
function parseVariable(source: string, start: number): { part: VariablePart; end: number } | undefined {
  const content: ContentPart[] = [];
  let text = '';
  let j = start + 2;
  while (j < source.length) {
    const code = source.charCodeAt(j);
    if (code === CLOSE) {
      if (source.charCodeAt(j + 1) !== CLOSE) return undefined;
      if (text !== '') content.push({ kind: 'text', text });
      return { part: { kind: 'variable', content, source: source.slice(start, j + 2) }, end: j + 2 };
    }
    if (code === OPEN) {
      if (source.charCodeAt(j + 1) === OPEN) {
        if (source.charCodeAt(j - 1) === BACKSLASH) return undefined;
        const nested = parseVariable(source, j);
        if (nested === undefined) return undefined;
        if (text !== '') content.push({ kind: 'text', text });
        text = '';
        content.push(nested.part);
        j = nested.end;
        continue;
      }
      const groupEnd = braceGroupEnd(source, j);
      if (groupEnd < 0) return undefined;
      text += source.slice(j, groupEnd);
      j = groupEnd;
      continue;
    }
    text += source[j];
    j++;
  }
  return undefined;
}

/** End (exclusive) of a `{...}` group without inner braces, or -1. */
function braceGroupEnd(source: string, start: number): number {
  for (let k = start + 1; k < source.length; k++) {
    const code = source.charCodeAt(k);
    if (code === CLOSE) return k + 1;
    if (code === OPEN) return -1;
  }
  return -1;
}
