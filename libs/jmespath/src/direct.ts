/**
 * JMESPath expressions made of field paths, indexes, `[]`/`[*]`/`.*` projections, filters, literals,
 * multi-selects, `||`/`&&`/`!`, comparisons and pipes, compiled into a tree of closures that read
 * the data directly: no node dispatch per step. Each closure does what `KyvernoInterpreter` does
 * for its node (same "not found" marker, null handling, flattening, lenient spots and error
 * swallowing) and charges the same budget: one step per node visited, and every value it builds
 * checked against the result size limit. Anything else (functions, slices, variables, `let`,
 * arithmetic) is not compiled: `compileDirect` answers undefined and the interpreter runs it.
 */
import { isBudgetError, type EvaluationBudget, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { compareValues, flattenOnce, isFalse, Missing, type AstNode, type EvalResult } from './interpreter';

/** A compiled node: evaluates against `value`; `root` is the whole document (`$`). */
export type DirectNode = (value: JsonValue, root: JsonValue, budget: EvaluationBudget) => EvalResult;

interface Binary extends AstNode {
  readonly left: AstNode;
  readonly right: AstNode;
}

/** The compiled form of an expression's tree, or undefined when some node needs the interpreter. */
export function compileDirect(node: AstNode): DirectNode | undefined {
  try {
    return compileNode(node);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** Thrown while compiling a tree holding a node left to the interpreter. */
class Unsupported extends Error {}

function compileNode(node: AstNode): DirectNode {
  switch (node.type) {
    case 'Field':
      return field(node['name'] as string);
    case 'Subexpression':
    case 'IndexExpression':
      return chain(node as Binary);
    case 'Index':
      return index(node['value'] as number);
    case 'Projection':
      return projection(node as Binary);
    case 'FilterProjection':
      return filterProjection(node as Binary & { condition: AstNode });
    case 'ValueProjection':
      return valueProjection(node as Binary);
    case 'Flatten':
      return flatten(compileNode(node['child'] as AstNode));
    case 'Identity':
    case 'Current':
      return (value, _root, budget) => {
        budget.step();
        return value;
      };
    case 'Root':
      return (_value, root, budget) => {
        budget.step();
        return root;
      };
    case 'Literal': {
      const literal = node['value'] as JsonValue;
      return (_value, _root, budget) => {
        budget.step();
        return literal;
      };
    }
    case 'MultiSelectList':
      return multiSelectList((node['children'] as AstNode[]).map(compileNode));
    case 'MultiSelectHash':
      return multiSelectHash(
        (node['children'] as Array<{ name: string; value: AstNode }>).map((pair) => ({
          name: pair.name,
          value: compileNode(pair.value),
        })),
      );
    case 'OrExpression':
      return or(compileNode((node as Binary).left), compileNode((node as Binary).right));
    case 'AndExpression':
      return and(compileNode((node as Binary).left), compileNode((node as Binary).right));
    case 'NotExpression': {
      const child = compileNode(node['child'] as AstNode);
      return (value, root, budget) => {
        budget.step();
        return isFalse(lenient(child, value, root, budget));
      };
    }
    case 'Pipe': {
      const left = compileNode((node as Binary).left);
      const right = compileNode((node as Binary).right);
      return (value, root, budget) => {
        budget.step();
        return lenient(right, lenient(left, value, root, budget), root, budget);
      };
    }
    case 'Comparator':
      return comparator(node as Binary & { name: string });
    default:
      throw new Unsupported(node.type);
  }
}

/** "Not found" read as null, as most composite nodes read their operands. */
function lenient(node: DirectNode, value: JsonValue, root: JsonValue, budget: EvaluationBudget): JsonValue {
  const result = node(value, root, budget);
  return result instanceof Missing ? null : result;
}

/** The interpreter ignores every error of the left side of flatten/filter/value projections but the budget's. */
function swallowAll(node: DirectNode, value: JsonValue, root: JsonValue, budget: EvaluationBudget): JsonValue {
  try {
    return lenient(node, value, root, budget);
  } catch (error) {
    if (isBudgetError(error)) throw error;
    return null;
  }
}

function field(name: string): DirectNode {
  return (value, _root, budget) => {
    budget.step();
    if (!isObject(value)) return null;
    return Object.prototype.hasOwnProperty.call(value, name) ? (value[name] as JsonValue) : new Missing(name);
  };
}

function chain(node: Binary): DirectNode {
  const left = compileNode(node.left);
  const right = compileNode(node.right);
  return (value, root, budget) => {
    budget.step();
    const base = left(value, root, budget);
    if (base instanceof Missing || base === null) return base;
    return right(base, root, budget);
  };
}

function index(position: number): DirectNode {
  return (value, _root, budget) => {
    budget.step();
    if (!Array.isArray(value)) return null;
    const at = position < 0 ? position + value.length : position;
    return at >= 0 && at < value.length ? (value[at] as JsonValue) : null;
  };
}

function projection(node: Binary): DirectNode {
  // A projection over a sliced string is the interpreter's (slices are not compiled).
  if (node.left.type === 'IndexExpression' && (node.left as Binary).right.type === 'Slice')
    throw new Unsupported(node.type);
  const left = compileNode(node.left);
  const right = compileNode(node.right);
  return (value, root, budget) => {
    budget.step();
    const base = lenient(left, value, root, budget);
    if (!Array.isArray(base)) return null;
    const collected: JsonValue[] = [];
    for (const element of base) {
      const current = lenient(right, element, root, budget);
      if (current !== null) collected.push(current);
    }
    budget.checkResult(collected, 'a projection');
    return collected;
  };
}

function filterProjection(node: Binary & { condition: AstNode }): DirectNode {
  const left = compileNode(node.left);
  const right = compileNode(node.right);
  const condition = compileNode(node.condition);
  return (value, root, budget) => {
    budget.step();
    const base = swallowAll(left, value, root, budget);
    if (!Array.isArray(base)) return null;
    const collected: JsonValue[] = [];
    for (const element of base) {
      if (isFalse(lenient(condition, element, root, budget))) continue;
      const current = lenient(right, element, root, budget);
      if (current !== null) collected.push(current);
    }
    budget.checkResult(collected, 'a projection');
    return collected;
  };
}

function valueProjection(node: Binary): DirectNode {
  const left = compileNode(node.left);
  const right = compileNode(node.right);
  return (value, root, budget) => {
    budget.step();
    const base = swallowAll(left, value, root, budget);
    if (!isObject(base)) return null;
    const collected: JsonValue[] = [];
    for (const element of Object.values(base)) {
      const current = lenient(right, element, root, budget);
      if (current !== null) collected.push(current);
    }
    budget.checkResult(collected, 'a projection');
    return collected;
  };
}

function flatten(child: DirectNode): DirectNode {
  return (value, root, budget) => {
    budget.step();
    const base = swallowAll(child, value, root, budget);
    if (!Array.isArray(base)) return null;
    const flat = flattenOnce(base);
    budget.checkResult(flat, 'a flatten');
    return flat;
  };
}

function multiSelectList(children: readonly DirectNode[]): DirectNode {
  return (value, root, budget) => {
    budget.step();
    const list: JsonValue[] = [];
    for (const child of children) list.push(lenient(child, value, root, budget));
    budget.checkResult(list, 'a multi-select list');
    return list;
  };
}

function multiSelectHash(pairs: readonly { name: string; value: DirectNode }[]): DirectNode {
  return (value, root, budget) => {
    budget.step();
    const out: JsonObject = {};
    for (const pair of pairs) out[pair.name] = lenient(pair.value, value, root, budget);
    budget.checkResult(out, 'a multi-select hash');
    return out;
  };
}

function or(left: DirectNode, right: DirectNode): DirectNode {
  return (value, root, budget) => {
    budget.step();
    const first = lenient(left, value, root, budget);
    return isFalse(first) ? lenient(right, value, root, budget) : first;
  };
}

function and(left: DirectNode, right: DirectNode): DirectNode {
  return (value, root, budget) => {
    budget.step();
    const first = lenient(left, value, root, budget);
    // As in the interpreter, a missing key on the right side still propagates.
    return isFalse(first) ? first : right(value, root, budget);
  };
}

function comparator(node: Binary & { name: string }): DirectNode {
  const left = compileNode(node.left);
  const right = compileNode(node.right);
  const name = node.name;
  return (value, root, budget) => {
    budget.step();
    return compareValues(name, lenient(left, value, root, budget), lenient(right, value, root, budget));
  };
}
