/**
 * What a GeneratingPolicy's `spec.generate` entries write, read statically for the permission check
 * at policy admission: each `generator.Apply(namespace, [objects])` call of an expression, with its
 * namespace when it is a string literal and each object's apiVersion and kind when they are literal
 * (a `variables.<name>` argument is followed into its variable's expression); each document of a
 * template, with its literal `metadata.namespace` and kind. What is decided at generation (an
 * expression, a placeholder, a list built at run time) is left `undefined`, and an expression that
 * reaches `generator` other than through calls read here gives one target open in every part, so
 * the check asks the widest question instead of skipping it (fail closed).
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { isObject, parseDocuments, type JsonValue, type KubeObject } from '@edict/foundation';

/** One kind of object a generate entry writes, and where. */
export interface GenerateTarget {
  /** The entry's field, e.g. `spec.generate[0].expression`. */
  readonly path: string;
  /** The namespace argument or `metadata.namespace`; undefined when decided at generation. */
  readonly namespace: string | undefined;
  /** Literal `apiVersion` and `kind`; undefined when either is decided at generation. */
  readonly apiVersion: string | undefined;
  readonly kind: string | undefined;
}

/** How deep `variables.<name>` references are followed (a variable naming another, and so on). */
const MAX_VARIABLE_DEPTH = 4;

let parser: Environment | undefined;

function parse(expression: string): ASTNode | undefined {
  parser ??= new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true });
  try {
    return parser.parse(expression).ast;
  } catch {
    return undefined;
  }
}

type Node = { op: string; args: unknown };

const isNode = (value: unknown): value is Node =>
  !!value && typeof value === 'object' && typeof (value as { op?: unknown }).op === 'string';

/** The targets of every `spec.generate[]` entry of a GeneratingPolicy. */
export function generateTargets(policy: KubeObject): GenerateTarget[] {
  const spec = (isObject(policy.spec as JsonValue) ? policy.spec : {}) as Record<string, unknown>;
  const variables = new Map<string, string>();
  for (const variable of Array.isArray(spec['variables']) ? spec['variables'] : []) {
    const { name, expression } = (variable ?? {}) as { name?: unknown; expression?: unknown };
    if (typeof name === 'string' && typeof expression === 'string') variables.set(name, expression);
  }
  const entries = Array.isArray(spec['generate']) ? spec['generate'] : [];
  return entries.flatMap((entry, index) => {
    const generation = (entry ?? {}) as { expression?: unknown; template?: { value?: unknown } };
    if (typeof generation.expression === 'string') {
      return expressionTargets(generation.expression, `spec.generate[${index}].expression`, variables);
    }
    if (typeof generation.template?.value === 'string') {
      return templateTargets(generation.template.value, `spec.generate[${index}].template.value`);
    }
    return [];
  });
}

function expressionTargets(expression: string, path: string, variables: ReadonlyMap<string, string>): GenerateTarget[] {
  const open: GenerateTarget = { path, namespace: undefined, apiVersion: undefined, kind: undefined };
  const ast = parse(expression);
  // An expression that does not parse never compiles (refused elsewhere); the widest question stays.
  if (!ast) return [open];
  const resolve = (node: unknown, depth = 0): unknown => {
    const name = variableName(node);
    if (name === undefined || depth >= MAX_VARIABLE_DEPTH) return node;
    const source = variables.get(name);
    const resolved = source === undefined ? undefined : parse(source);
    return resolved ? resolve(resolved, depth + 1) : node;
  };
  const calls: Node[] = [];
  let generatorUses = 0;
  const visit = (node: unknown, depth: number): void => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item, depth));
    if (!node || typeof node !== 'object') return;
    if (!isNode(node)) return Object.values(node).forEach((value) => visit(value, depth));
    if (node.op === 'id' && node.args === 'generator') generatorUses++;
    if (isApplyCall(node)) calls.push(node);
    // Variables are followed too: `generator` used inside one counts as a use of this expression.
    const name = variableName(node);
    if (name !== undefined && depth < MAX_VARIABLE_DEPTH) {
      const source = variables.get(name);
      const resolved = source === undefined ? undefined : parse(source);
      if (resolved && mentionsGenerator(resolved)) visit(resolved, depth + 1);
    }
    visit(node.args, depth);
  };
  visit(ast, 0);
  // `generator` reached another way (held in a variable, another method): nothing here is known.
  if (generatorUses !== calls.length) return [open];
  return calls.flatMap((call) => {
    const [namespaceArg, objectsArg] = (call.args as [string, Node, unknown[]])[2];
    const namespaceNode = resolve(namespaceArg);
    const namespace =
      isNode(namespaceNode) && namespaceNode.op === 'value' && typeof namespaceNode.args === 'string'
        ? namespaceNode.args
        : undefined;
    return objectKinds(resolve(objectsArg), resolve).map((kind) => ({ path, namespace, ...kind }));
  });
}

function isApplyCall(node: Node): boolean {
  if (node.op !== 'rcall' || !Array.isArray(node.args)) return false;
  const [method, receiver, args] = node.args as [unknown, unknown, unknown];
  return (
    method === 'Apply' &&
    isNode(receiver) &&
    receiver.op === 'id' &&
    receiver.args === 'generator' &&
    Array.isArray(args) &&
    args.length === 2
  );
}

function mentionsGenerator(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsGenerator);
  if (!node || typeof node !== 'object') return false;
  if (isNode(node)) return (node.op === 'id' && node.args === 'generator') || mentionsGenerator(node.args);
  return Object.values(node).some(mentionsGenerator);
}

/** `variables.<name>` (or `variables["<name>"]`) names a variable. */
function variableName(node: unknown): string | undefined {
  if (!isNode(node) || !Array.isArray(node.args)) return undefined;
  const [target, field] = node.args as [unknown, unknown];
  if (!isNode(target) || target.op !== 'id' || target.args !== 'variables') return undefined;
  if (node.op === '.' && typeof field === 'string') return field;
  if (node.op === '[]' && isNode(field) && field.op === 'value' && typeof field.args === 'string') return field.args;
  return undefined;
}

type Kind = Pick<GenerateTarget, 'apiVersion' | 'kind'>;
const OPEN_KIND: Kind = { apiVersion: undefined, kind: undefined };

/** The kinds of a list of objects: literal maps are read, anything else is open. */
function objectKinds(list: unknown, resolve: (node: unknown) => unknown): Kind[] {
  if (!isNode(list) || list.op !== 'list' || !Array.isArray(list.args)) return [OPEN_KIND];
  return list.args.flatMap((item) => objectKind(resolve(item), resolve));
}

function objectKind(object: unknown, resolve: (node: unknown) => unknown): Kind[] {
  if (!isNode(object) || object.op !== 'map' || !Array.isArray(object.args)) return [OPEN_KIND];
  const field = (name: string): unknown => {
    const entry = (object.args as [unknown, unknown][]).find(
      ([key]) => isNode(key) && key.op === 'value' && key.args === name,
    );
    return entry && resolve(entry[1]);
  };
  const literal = (value: unknown): string | undefined =>
    isNode(value) && value.op === 'value' && typeof value.args === 'string' ? value.args : undefined;
  const apiVersion = literal(field('apiVersion'));
  const kind = literal(field('kind'));
  // A List's items are each written: their kinds count.
  if (kind?.endsWith('List')) return objectKinds(field('items'), resolve);
  return apiVersion !== undefined && kind !== undefined ? [{ apiVersion, kind }] : [OPEN_KIND];
}

function templateTargets(value: string, path: string): GenerateTarget[] {
  const parsed = parseDocuments(value, path);
  const documents = parsed.documents.map((document) => document.value as JsonValue);
  const literal = (text: unknown): string | undefined =>
    typeof text === 'string' && !text.includes('((') ? text : undefined;
  return documents
    .filter((document) => document !== null && document !== undefined)
    .map((document): GenerateTarget => {
      if (!isObject(document)) return { path, namespace: undefined, apiVersion: undefined, kind: undefined };
      const metadata = isObject(document['metadata'] as JsonValue)
        ? (document['metadata'] as Record<string, unknown>)
        : {};
      const apiVersion = literal(document['apiVersion']);
      const kind = literal(document['kind']);
      return {
        path,
        namespace: literal(metadata['namespace']),
        ...(apiVersion !== undefined && kind !== undefined ? { apiVersion, kind } : OPEN_KIND),
      };
    });
}
