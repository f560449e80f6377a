import { Environment, type ASTNode } from '@marcbachmann/cel-js';

/** Kyverno's admission refusal of a namespaced policy whose expressions use `http` (without its toggle). */
export const HTTP_IN_NAMESPACED_POLICY =
  'http.* is not allowed in namespaced policies; set --allowHTTPInNamespacedPolicies to enable';

let parser: Environment | undefined;

/**
 * Whether any expression names `identifier` (an identifier, not text in a string), as Kyverno's
 * ExpressionsUseHTTP / ExpressionsUseGlobalContext decide it: parsed, not type-checked, and an
 * expression that does not parse is skipped (its compile error is reported elsewhere).
 */
export function expressionsUseIdentifier(identifier: string, expressions: readonly string[]): boolean {
  parser ??= new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true });
  for (const expression of expressions) {
    if (!expression) continue;
    let ast: ASTNode;
    try {
      ast = parser.parse(expression).ast;
    } catch {
      continue;
    }
    if (names(ast, identifier)) return true;
  }
  return false;
}

function names(node: unknown, identifier: string): boolean {
  if (Array.isArray(node)) return node.some((item) => names(item, identifier));
  if (!node || typeof node !== 'object') return false;
  const ast = node as { op?: unknown; args?: unknown };
  if (typeof ast.op !== 'string') {
    // Map literal entries and comprehension parts are plain objects holding nodes.
    return Object.values(node).some((value) => typeof value === 'object' && names(value, identifier));
  }
  if (ast.op === 'id') return ast.args === identifier;
  return names(ast.args, identifier);
}
