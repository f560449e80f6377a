import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType } from './internals';
import { entryValue, isOptionalEntry } from './optional-entries';
import { OBJECT_CONSTRUCTION } from './syntax';
import { celError } from './values';

/**
 * What a registered type needs to be constructed with CEL's `Name{field: value}` syntax: its class
 * carries this under the CONSTRUCTIBLE key (see libraries/mutation.ts for Kubernetes' `Object` and
 * `JSONPatch`). cel-js 8.0.0 has no message construction; syntax.ts parses it, this checks and
 * evaluates it.
 */
export interface ConstructibleType {
  /** Whether `Name.a.b{...}` names a type of this family too (Kubernetes' `Object.spec.containers`). */
  readonly dottedNames: boolean;
  /** A field's declared type: 'string' or 'dyn'; undefined when the type has no such field. */
  fieldType(field: string): 'string' | 'dyn' | undefined;
  /** The value of `typeName{fields}`; throws a CEL error when a field's value does not fit. */
  construct(typeName: string, fields: ReadonlyMap<string, unknown>): object;
}

export const CONSTRUCTIBLE = Symbol.for('edict.cel.constructible');

interface ObjectTypes {
  readonly objectTypes?: ReadonlyMap<string, { readonly ctor?: { readonly [CONSTRUCTIBLE]?: ConstructibleType } }>;
}

/** Marks a parsed `Name{...}` for checking and evaluation as an object construction; true when it was one. */
export function fixObjectConstruction(node: AstNode): boolean {
  if (node.op !== 'map' || typeof node.meta[OBJECT_CONSTRUCTION] !== 'string') return false;
  node.setMeta('check', checkConstruction);
  node.setMeta('evaluate', evaluateConstruction);
  return true;
}

function typeNameOf(ast: AstNode): string {
  return ast.meta[OBJECT_CONSTRUCTION] as string;
}

function rootName(typeName: string): string {
  const dot = typeName.indexOf('.');
  return dot < 0 ? typeName : typeName.slice(0, dot);
}

function resolve(registry: unknown, typeName: string): ConstructibleType | undefined {
  const root = rootName(typeName);
  const type = (registry as ObjectTypes).objectTypes?.get(root)?.ctor?.[CONSTRUCTIBLE];
  if (!type || (root !== typeName && !type.dottedNames)) return undefined;
  return type;
}

function fieldName(key: AstNode): string | undefined {
  return key.op === 'id' ? (key.args as unknown as string) : undefined;
}

function checkConstruction(checker: CelChecker, ast: AstNode, ctx: CelContext): CelType {
  const typeName = typeNameOf(ast);
  const type = resolve(checker.registry, typeName);
  if (!type) throw checker.createError('unknown_type', `undeclared reference to type '${typeName}'`, ast);
  const seen = new Set<string>();
  for (const [key, value] of ast.args as unknown as [AstNode, AstNode][]) {
    const name = fieldName(key);
    if (name === undefined)
      throw checker.createError('invalid_field', `${typeName}: a field name must be an identifier`, key);
    if (seen.has(name)) throw checker.createError('repeated_field', `${typeName}: field '${name}' is set twice`, key);
    seen.add(name);
    const declared = type.fieldType(name);
    if (!declared) throw checker.createError('undefined_field', `undefined field '${name}' of type '${typeName}'`, key);
    let actual = checker.check(value, ctx);
    if (isOptionalEntry(key)) {
      if (actual.kind !== 'optional' && actual.kind !== 'dyn')
        throw checker.createError('optional_expected', `'?' needs an optional, got '${actual.name}'`, value);
      actual = actual.valueType ?? checker.dynType;
    }
    if (declared === 'string' && actual.kind !== 'dyn' && actual.name !== 'string') {
      throw checker.createError(
        'field_type_mismatch',
        `field '${name}' of type '${typeName}' expects string, got '${actual.name}'`,
        value,
      );
    }
  }
  return checker.getType(rootName(typeName));
}

function evaluateConstruction(evaluator: CelEvaluator, ast: AstNode, ctx: CelContext): unknown {
  const entries = ast.args as unknown as [AstNode, AstNode][];
  const values = entries.map(([, value]) => evaluator.run(value, ctx));
  if (values.some((value) => value instanceof Promise)) {
    return Promise.all(values).then((settled) => construct(evaluator, ast, entries, settled));
  }
  return construct(evaluator, ast, entries, values);
}

function construct(evaluator: CelEvaluator, ast: AstNode, entries: [AstNode, AstNode][], values: unknown[]): unknown {
  const typeName = typeNameOf(ast);
  const type = resolve((evaluator as unknown as { registry?: unknown }).registry ?? evaluator, typeName);
  if (!type) throw celError(`undeclared reference to type '${typeName}'`, ast);
  const fields = new Map<string, unknown>();
  entries.forEach(([key], i) => {
    const value = entryValue(key, values[i]);
    if (value !== undefined) fields.set(fieldName(key) as string, value);
  });
  return type.construct(typeName, fields);
}
