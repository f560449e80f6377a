import { celEquals, celIn } from './equality';
import { acceptOperands, replaceHandle } from './handles';
import type { AstNode, CelType } from './internals';
import { isConstantList, literalsOf } from './constants';
import { isUint } from './literals';

/**
 * Equality, membership and ordering as CEL defines them, over cel-js's operator dispatch: `==`,
 * `!=` and `in` by CEL equality (see equality.ts); `<`, `<=`, `>`, `>=` between an int or uint and a
 * double compare the integer converted to double, as cel-go does (so `9223372036854775807 <
 * 9223372036854775808.0` is false); bytes are ordered and optionals compared, which cel-js lacks.
 * Everything else goes to the handler cel-js chose when checking.
 */
export function fixOperators(node: AstNode): void {
  switch (node.op as string) {
    case '==':
      replaceHandle(node, () => (left, right, _ast, evaluator) => celEquals(left, right, evaluator));
      return acceptOperands(node, (left, right) =>
        bothOptional(left, right) ? (l, r, _ast, evaluator) => celEquals(l, r, evaluator) : undefined,
      );
    case '!=':
      replaceHandle(node, () => (left, right, _ast, evaluator) => !celEquals(left, right, evaluator));
      return acceptOperands(node, (left, right) =>
        bothOptional(left, right) ? (l, r, _ast, evaluator) => !celEquals(l, r, evaluator) : undefined,
      );
    case 'in': {
      // A string in a literal list of strings (`x in ['a', 'b']`): looked up in a Set built once.
      const strings = constantStrings((node.args as unknown as AstNode[])[1]);
      return replaceHandle(node, (original) =>
        strings
          ? (left, right, ast, evaluator) =>
              typeof left === 'string'
                ? strings.has(left)
                : (celIn(left, right, evaluator) ?? original(left, right, ast, evaluator))
          : (left, right, ast, evaluator) => celIn(left, right, evaluator) ?? original(left, right, ast, evaluator),
      );
    }
    case '+':
      // Lists of dyn type: cel-js finds the overload by each operand's runtime element type
      // (debugTypeDeep) on every evaluation, though list + list concatenates whatever the elements.
      return replaceHandle(
        node,
        (original, ast) =>
          ast.left?.checkedType?.hasDynType || ast.right?.checkedType?.hasDynType
            ? (left, right, ast, evaluator) =>
                Array.isArray(left) && Array.isArray(right)
                  ? [...left, ...right]
                  : original(left, right, ast, evaluator)
            : undefined,
        'as given',
      );
    case '<':
    case '<=':
    case '>':
    case '>=':
      replaceHandle(
        node,
        (original) => (left, right, ast, evaluator) =>
          compareMixed(node.op as string, left, right) ?? original(left, right, ast, evaluator),
      );
      // Bytes are ordered lexicographically by byte, as in cel-go.
      return acceptOperands(node, (left, right) =>
        left?.name === 'bytes' && right?.name === 'bytes'
          ? (l, r) => ordered(node.op as string, compareBytes(l as Uint8Array, r as Uint8Array))
          : undefined,
      );
  }
}

/** The elements of a literal list of strings only, as a Set; undefined for anything else. */
function constantStrings(node: AstNode | undefined): ReadonlySet<string> | undefined {
  if (!isConstantList(node)) return undefined;
  const literals = literalsOf(node);
  return literals.every((literal) => typeof literal === 'string') ? new Set(literals as string[]) : undefined;
}

function bothOptional(left: CelType | undefined, right: CelType | undefined): boolean {
  return left?.kind === 'optional' && right?.kind === 'optional';
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

function ordered(op: string, comparison: number): boolean {
  switch (op) {
    case '<':
      return comparison < 0;
    case '<=':
      return comparison <= 0;
    case '>':
      return comparison > 0;
    default:
      return comparison >= 0;
  }
}

function compareMixed(op: string, left: unknown, right: unknown): boolean | undefined {
  if ((typeof left === 'number') === (typeof right === 'number')) return undefined;
  const l = typeof left === 'bigint' ? Number(left) : isUint(left) ? Number(left.valueOf()) : left;
  const r = typeof right === 'bigint' ? Number(right) : isUint(right) ? Number(right.valueOf()) : right;
  if (typeof l !== 'number' || typeof r !== 'number') return undefined;
  switch (op) {
    case '<':
      return l < r;
    case '<=':
      return l <= r;
    case '>':
      return l > r;
    default:
      return l >= r;
  }
}
