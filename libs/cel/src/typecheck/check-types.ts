/**
 * A bounded type check of one CEL expression against schema-typed variables, for what
 * kube-apiserver's ValidatingAdmissionPolicy type checking reports (`status.typeChecking`): field
 * selections that the schema does not declare (`undefined field 'x'`) and operators applied to
 * operand types that have no overload (`found no matching overload for '_>_' applied to '(int,
 * string)'`). Only what is known for certain is reported: an operand of unknown type (dyn, a
 * function's result, params without a schema, variables) makes the checker silent. Messages are
 * cel-go's, with its location and the source line with a caret beneath.
 *
 * Pure. Bounded by the parser's limits (nodes and depth) and one visit per node.
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { DYN, primitive, type CelCheckedType, type CelPrimitive } from './schema-types';

/** One issue: where (an offset into the expression) and cel-go's message. */
export interface CelTypeIssue {
  readonly offset: number;
  readonly message: string;
}

/** The variables with known types; any other identifier is dyn. */
export type CelTypedVariables = Readonly<Record<string, CelCheckedType>>;

const PARSER = new Environment({
  unlistedVariablesAreDyn: true,
  limits: { maxAstNodes: 5_000, maxDepth: 100, maxListElements: 1_000, maxMapEntries: 1_000 },
} as never);

/** Issues of `expression` (sorted by position; empty when it checks, or does not parse). */
export function checkCelTypes(expression: string, variables: CelTypedVariables): CelTypeIssue[] {
  let ast: ASTNode;
  try {
    ast = PARSER.parse(expression).ast as ASTNode;
  } catch {
    // Parse errors are the compiler's to report; the type checker has nothing to add.
    return [];
  }
  const checker = new Checker(expression, variables);
  checker.visit(ast, new Map());
  return checker.issues.sort((a, b) => a.offset - b.offset);
}

/** cel-go's text of the issues: `ERROR: <input>:line:column: message`, the line, a caret under the column. */
export function formatCelIssues(expression: string, issues: readonly CelTypeIssue[]): string {
  return issues
    .map((issue) => {
      const before = expression.slice(0, issue.offset);
      const line = before.split('\n').length;
      const lineStart = before.lastIndexOf('\n') + 1;
      const column = [...expression.slice(lineStart, issue.offset)].length;
      const text = expression.slice(lineStart).split('\n')[0];
      return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${text}\n | ${'.'.repeat(column)}^`;
    })
    .join('\n');
}

const NUMERIC = new Set<CelPrimitive>(['int', 'uint', 'double']);
/** Types whose mismatches the checker reports; the others (null, timestamps, durations) have overloads it does not model. */
const REPORTED = new Set<CelPrimitive>(['int', 'uint', 'double', 'string', 'bool', 'bytes']);
const COMPARISONS = new Set(['<', '<=', '>', '>=']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);
const QUANTIFIERS = new Set(['all', 'exists', 'exists_one']);
const BOOLEAN_METHODS = new Set(['startsWith', 'endsWith', 'contains', 'matches']);

type Scope = ReadonlyMap<string, CelCheckedType>;

class Checker {
  readonly issues: CelTypeIssue[] = [];

  constructor(
    private readonly source: string,
    private readonly variables: CelTypedVariables,
  ) {}

  visit(node: ASTNode, scope: Scope): CelCheckedType {
    switch (node.op) {
      case 'value':
        return literalType(node.args);
      case 'id':
        return scope.get(node.args) ?? (Object.hasOwn(this.variables, node.args) ? this.variables[node.args] : DYN);
      case '.':
        return this.select(node.args[0], node.args[1], node.pos, scope);
      case '.?':
        this.visit(node.args[0], scope);
        return DYN;
      case '[]':
      case '[?]': {
        const base = this.visit(node.args[0], scope);
        this.visit(node.args[1], scope);
        if (node.op === '[?]') return DYN;
        if (base.kind === 'list') return base.element;
        if (base.kind === 'map') return base.value;
        return DYN;
      }
      case 'list': {
        const elements = node.args.map((element) => this.visit(element, scope));
        return {
          kind: 'list',
          element: elements.length > 0 && elements.every((t) => same(t, elements[0])) ? elements[0] : DYN,
        };
      }
      case 'map':
        for (const [key, value] of node.args) {
          this.visit(key, scope);
          this.visit(value, scope);
        }
        return { kind: 'map', value: DYN };
      case '?:':
        this.visit(node.args[0], scope);
        this.visit(node.args[1], scope);
        this.visit(node.args[2], scope);
        return DYN;
      case '!_':
        this.visit(node.args, scope);
        return primitive('bool');
      case '-_':
        return this.visit(node.args, scope);
      case 'call':
        return this.call(node.args[0], undefined, node.args[1], scope);
      case 'rcall':
        return this.call(node.args[0], node.args[1], node.args[2], scope);
      default:
        return this.binary(node, scope);
    }
  }

  private select(target: ASTNode, field: string, offset: number, scope: Scope): CelCheckedType {
    const base = this.visit(target, scope);
    if (base.kind === 'map') return base.value;
    if (base.kind !== 'object') return DYN;
    const type = base.field(field);
    if (type) return type;
    // cel-go places a selection at its dot; the parser's position is the field name's.
    this.issues.push({
      offset: Math.max(0, this.source.lastIndexOf('.', offset)),
      message: `undefined field '${field}'`,
    });
    return DYN;
  }

  private call(name: string, receiver: ASTNode | undefined, args: readonly ASTNode[], scope: Scope): CelCheckedType {
    const target = receiver ? this.visit(receiver, scope) : undefined;
    const first = args[0];
    // Macros bind their variables: over a list its elements, over a map its keys.
    if (receiver && first?.op === 'id' && (QUANTIFIERS.has(name) || name === 'map' || name === 'filter')) {
      const bound =
        target?.kind === 'list'
          ? target.element
          : target?.kind === 'map' && args.length === 2
            ? primitive('string')
            : DYN;
      const inner = new Map(scope);
      if (args.length === 2) inner.set(first.args, bound);
      else for (const variable of args.slice(0, -1)) if (variable.op === 'id') inner.set(variable.args, DYN);
      for (const arg of args.slice(args.length === 2 ? 1 : args.length - 1)) this.visit(arg, inner);
      if (QUANTIFIERS.has(name)) return primitive('bool');
      if (name === 'filter' && target?.kind === 'list') return target;
      return { kind: 'list', element: DYN };
    }
    if (!receiver && name === 'has') {
      for (const arg of args) this.visit(arg, scope);
      return primitive('bool');
    }
    for (const arg of args) this.visit(arg, scope);
    if (name === 'size') return primitive('int');
    if (receiver && BOOLEAN_METHODS.has(name) && target?.kind === 'primitive' && target.name === 'string') {
      return primitive('bool');
    }
    return DYN;
  }

  private binary(node: ASTNode, scope: Scope): CelCheckedType {
    const [left, right] = node.args as [ASTNode, ASTNode];
    const a = this.visit(left, scope);
    const b = this.visit(right, scope);
    const op = node.op as string;
    const known = a.kind === 'primitive' && b.kind === 'primitive' && REPORTED.has(a.name) && REPORTED.has(b.name);
    if (op === '&&' || op === '||') {
      if (known && (a.name !== 'bool' || b.name !== 'bool')) this.noOverload(op, a, b, left, right);
      return primitive('bool');
    }
    if (op === 'in') return primitive('bool');
    // Ordering exists for every reported type, across the numeric ones too (Kubernetes' cross-type numeric comparisons).
    if (COMPARISONS.has(op) || op === '==' || op === '!=') {
      if (known && a.name !== b.name && !(NUMERIC.has(a.name) && NUMERIC.has(b.name))) {
        this.noOverload(op, a, b, left, right);
      }
      return primitive('bool');
    }
    if (ARITHMETIC.has(op)) {
      if (!known) return DYN;
      const textual = a.name === 'string' || a.name === 'bytes';
      if (a.name !== b.name || a.name === 'bool' || (textual && op !== '+') || (op === '%' && a.name === 'double')) {
        this.noOverload(op, a, b, left, right);
        return DYN;
      }
      return a;
    }
    return DYN;
  }

  /** cel-go reports an operator's missing overload at the operator. */
  private noOverload(op: string, a: CelCheckedType, b: CelCheckedType, left: ASTNode, right: ASTNode): void {
    const between = this.source.slice(left.end, right.start);
    const at = between.indexOf(op);
    this.issues.push({
      offset: at < 0 ? left.end : left.end + at,
      message: `found no matching overload for '_${op}_' applied to '(${typeName(a)}, ${typeName(b)})'`,
    });
  }
}

function literalType(value: unknown): CelCheckedType {
  if (typeof value === 'bigint') return primitive('int');
  if (typeof value === 'number') return primitive('double');
  if (typeof value === 'string') return primitive('string');
  if (typeof value === 'boolean') return primitive('bool');
  if (value === null) return primitive('null');
  return DYN;
}

function typeName(type: CelCheckedType): string {
  return type.kind === 'primitive' ? type.name : type.kind;
}

function same(a: CelCheckedType, b: CelCheckedType): boolean {
  return a.kind === 'primitive' && b.kind === 'primitive' && a.name === b.name;
}
