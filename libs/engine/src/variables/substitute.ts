import { type JsonValue, errorMessage } from '@edict/foundation';
import type { EvaluationContext } from './context';
import { compileDirectJmesPath, type JmesPathQuery } from '@edict/jmespath';
import { currentValueExpression } from './current-path';
import { rewriteDocument } from './document-walk';
import { ContextQueryError, VariableSubstitutionError } from './errors';
import { containsReference, substituteReferences } from './references';
import { NO_PROGRESS, interpolationText, rescanSubstitute, variableExpression } from './rescan';
import { getTemplate, type ContentPart, type ParsedTemplate, type VariablePart } from './template';

export interface SubstitutionOptions {
  /**
   * `error` (default): an unresolvable variable throws VariableSubstitutionError, as Kyverno does
   * everywhere today, preconditions included. `empty`: it reads as `""` instead (Kyverno's
   * pre-1.9 preconditions resolver).
   */
  missing?: 'error' | 'empty';
  /**
   * Path of `value` inside the document Kyverno would traverse (default `""`, i.e. `value` is the
   * whole document). It prefixes paths in messages, `{{@}}` and `$(...)` resolution.
   */
  path?: string;
}

/** Substituted containers are walked again (as Kyverno does); this bounds self-referencing data. */
const MAX_NESTING = 64;

/**
 * Substitutes `$(...)` references, then `{{ ... }}` variables, in every string and object key of
 * `value`. Returns `value` itself when nothing changes, and shares unchanged subtrees otherwise.
 *
 * - A string that is exactly one variable takes the variable's JSON value (object, number, null...);
 *   a variable inside a longer string is written as text (strings raw, other values as JSON).
 * - Nested variables (`{{ a.{{ b }} }}`) resolve inside-out; `\{{ x }}` stays literal (`{{ x }}`).
 * - `{{@}}` reads the resource value at the same path; on DELETE, `request.object` reads `request.oldObject`.
 * - A key that becomes null keeps its name; a key that becomes a non-string is an error.
 * - A key missing along a variable's path is an error: `failed to resolve <var> at path <path>: JMESPath
 *   query failed: Unknown key "<key>" in path`; a value that exists but is null is substituted as null.
 */
export function substituteVariables(
  value: JsonValue,
  ctx: EvaluationContext,
  options: SubstitutionOptions = {},
): JsonValue {
  const basePath = options.path ?? '';
  const withReferences = substituteReferences(value, basePath);
  if (!containsBraces(withReferences)) return withReferences;
  const substitution = new Substitution(ctx, options.missing ?? 'error');
  return substitution.document(withReferences, basePath, 0);
}

/** A value's substitution prepared once per policy; gives what `substituteVariables(value, ctx)` gives. */
export type PreparedSubstitution = (ctx: EvaluationContext) => JsonValue;

/**
 * Prepares `substituteVariables(value, ctx)` (default options) for repeated use: a value without
 * `{{` or `$(` is a constant, and a string that is one plain variable (`{{ request.operation }}`)
 * becomes a direct query. Whatever else, and any query that fails or yields data holding `{{`, goes
 * through `substituteVariables`, which derives Kyverno's result and error messages.
 */
export function prepareSubstitution(value: JsonValue): PreparedSubstitution {
  if (isSubstitutionConstant(value)) return () => value;
  const expression = singleVariable(value);
  const interpret = (ctx: EvaluationContext) => substituteVariables(value, ctx);
  if (expression === undefined) return interpret;
  let query: JmesPathQuery;
  let onDelete: JmesPathQuery;
  try {
    query = compileDirectJmesPath(expression);
    onDelete = compileDirectJmesPath(expression.split('request.object').join('request.oldObject'));
  } catch {
    return interpret; // it reports the syntax error in Kyverno's words
  }
  return (ctx) => {
    try {
      const result = ctx.search(ctx.operation() === 'DELETE' ? onDelete : query);
      if (result === null || typeof result !== 'object' || !containsBraces(result)) return result;
    } catch {
      // The interpreter below reports the failure in Kyverno's words.
    }
    return interpret(ctx);
  };
}

/** The expression of a string that is exactly one variable without nested ones (`@` aside). */
function singleVariable(value: JsonValue): string | undefined {
  if (typeof value !== 'string') return undefined;
  const template = getTemplate(value);
  if (template.kind !== 'template' || template.single === undefined) return undefined;
  const content = template.single.content;
  if (content.length !== 1 || content[0]!.kind !== 'text') return undefined;
  const expression = content[0]!.text.trim();
  return expression === '@' || expression === '' ? undefined : expression;
}

/** True when `value` holds no `{{` and no `$(`: substituting it gives `value` itself, whatever the context. */
export function isSubstitutionConstant(value: JsonValue): boolean {
  return !containsReference(value) && !containsBraces(value);
}

/** Cheap pre-check so documents without any `{{` are returned without a rewrite walk. */
function containsBraces(value: JsonValue): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsBraces);
  return Object.keys(value).some((key) => key.includes('{{') || containsBraces(value[key] as JsonValue));
}

/** Thrown inside the tree evaluation when Kyverno's re-scanning could give a different answer. */
const RESCAN = Symbol('rescan');

class Substitution {
  private readonly deleting: boolean;

  constructor(
    private readonly ctx: EvaluationContext,
    private readonly missing: 'error' | 'empty',
  ) {
    this.deleting = ctx.operation() === 'DELETE';
  }

  document(value: JsonValue, path: string, depth: number): JsonValue {
    if (depth > MAX_NESTING) {
      throw new VariableSubstitutionError(`variable substitution nested too deeply at path ${path}`, '', path);
    }
    return rewriteDocument(value, path, {
      leaf: (leaf, leafPath) => {
        if (typeof leaf !== 'string') return leaf;
        const result = this.string(leaf, leafPath);
        // Kyverno keeps traversing whatever a variable produced, substituting inside it too.
        return result !== null && typeof result === 'object' && containsBraces(result)
          ? this.document(result, leafPath, depth + 1)
          : result;
      },
      key: (key, parentPath) => {
        if (!key.includes('{{')) return key;
        const result = this.string(key, parentPath);
        if (result === null) return key;
        if (typeof result !== 'string') {
          throw new VariableSubstitutionError(
            `expected string after substituting variables in key "${key}"`,
            key,
            parentPath,
          );
        }
        return result;
      },
    });
  }

  /** One string: the parsed template when it is faithful, Kyverno's re-scan otherwise. */
  string(source: string, path: string): JsonValue {
    const template = getTemplate(source);
    if (template.kind === 'plain') return source;
    if (template.kind === 'template') {
      try {
        return this.template(template, path);
      } catch (error) {
        // Errors are re-derived by the re-scan so the first failure reported is Kyverno's.
        if (error !== RESCAN && !(error instanceof VariableSubstitutionError)) throw error;
      }
    }
    const result = rescanSubstitute(
      source,
      (variableText) => {
        this.ctx.budget.checkDeadline();
        return this.resolve(variableExpression(variableText), path);
      },
      (length) => this.checkLength(length, path),
    );
    if (result === NO_PROGRESS) {
      throw new VariableSubstitutionError(
        `variable substitution does not terminate for "${source}" at path ${path}`,
        source,
        path,
      );
    }
    return result;
  }

  private template(template: ParsedTemplate, path: string): JsonValue {
    if (template.single) return this.variable(template.single, path);
    let out = '';
    for (const part of template.parts) {
      if (part.kind === 'text') {
        out += part.text;
      } else if (part.kind === 'escaped') {
        out += `{{${this.content(part.content, path)}}}`;
      } else {
        const text = insertedText(this.variable(part, path));
        if (text === '' && template.onlyVariables) throw RESCAN;
        out += text;
      }
      this.checkLength(out.length, path);
    }
    return out;
  }

  /** A substituted string is a document too: bounded before it grows any further. */
  private checkLength(length: number, path: string): void {
    const limit = this.ctx.budget.limits.maxDocumentSize;
    if (limit > 0 && length > limit) throw this.ctx.budget.documentTooLarge(`the text substituted at ${path}`);
  }

  private variable(part: VariablePart, path: string): JsonValue {
    return this.resolve(this.content(part.content, path).trim(), path);
  }

  private content(parts: readonly ContentPart[], path: string): string {
    let text = '';
    for (const part of parts) text += part.kind === 'text' ? part.text : insertedText(this.variable(part, path));
    return text;
  }

  /** Resolves one variable expression, with Kyverno's `@` and DELETE rewrites and messages. */
  private resolve(expression: string, path: string): JsonValue {
    let variable = expression;
    if (variable === '@') variable = currentValueExpression(path, this.currentValuePrefix());
    if (this.deleting) variable = variable.split('request.object').join('request.oldObject');
    try {
      return this.ctx.query(variable);
    } catch (error) {
      if (this.missing === 'empty') return '';
      const reason = error instanceof ContextQueryError ? error.message : errorMessage(error);
      throw new VariableSubstitutionError(`failed to resolve ${variable} at path ${path}: ${reason}`, variable, path);
    }
  }

  /** `target` when a mutate-existing target is in the context, the admitted object otherwise. */
  private currentValuePrefix(): readonly string[] {
    try {
      this.ctx.query('target');
      return ['target'];
    } catch {
      return ['request', 'object'];
    }
  }
}

/** Substituted text that could change how Kyverno's regex sees the string forces a re-scan. */
function insertedText(value: JsonValue): string {
  const text = interpolationText(value);
  if (text.includes('{') || text.includes('}') || text.includes('\\')) throw RESCAN;
  return text;
}
