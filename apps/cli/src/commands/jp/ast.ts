import { compile } from '@jmespath-community/jmespath';
import type { JsonValue } from '@edict/foundation';
import { goQuote, goSharpV } from './go-text';

/** A node of go-jmespath's AST: its type name, the text of its value, its children. */
interface GoNode {
  readonly type: string;
  readonly value?: string;
  readonly children: readonly GoNode[];
}

type JsNode = Record<string, unknown> & { type: string };

/** A JMESPath syntax error: the parser's message and, when known, where in the expression. */
export class JmesPathSyntaxError extends Error {}

/** The expression's tree from Edict's parser (the one queries run with); throws JmesPathSyntaxError. */
export function parseExpression(expression: string): JsNode {
  try {
    return compile(expression) as unknown as JsNode;
  } catch (error) {
    throw new JmesPathSyntaxError(`SyntaxError: ${(error as Error).message.replace(/^Syntax error:?\s*/, '')}`);
  }
}

const node = (type: string, children: GoNode[] = [], value?: string): GoNode => ({ type, value, children });
const field = (name: unknown) => goQuote(String(name));

/** Slices print their bounds (go-jmespath's `[]*int` prints pointer addresses, which say nothing). */
function sliceValue(n: JsNode): string {
  const bound = (value: unknown) => (typeof value === 'number' ? String(value) : 'nil');
  return `[]*int{${[n['start'], n['stop'], n['step']].map(bound).join(', ')}}`;
}

/** Edict's parser tree in go-jmespath's shape (the node kinds and child order its parser builds). */
function toGo(n: JsNode): GoNode {
  const child = (key: string) => toGo(n[key] as JsNode);
  const pair = (type: string) => node(type, [child('left'), child('right')]);
  switch (n.type) {
    case 'Field':
      return node('ASTField', [], field(n['name']));
    case 'Literal':
      return node('ASTLiteral', [], n['value'] === null ? undefined : goSharpV(n['value'] as JsonValue));
    case 'Current':
      return node('ASTCurrentNode');
    case 'Root':
      return node('ASTRootNode');
    case 'Identity':
      return node('ASTIdentity');
    case 'Index':
      return node('ASTIndex', [], String(n['value']));
    case 'Slice':
      return node('ASTSlice', [], sliceValue(n));
    case 'Subexpression':
      return pair('ASTSubexpression');
    case 'Projection':
      return pair('ASTProjection');
    case 'ValueProjection':
      return pair('ASTValueProjection');
    case 'IndexExpression':
      return pair('ASTIndexExpression');
    case 'Pipe':
      return pair('ASTPipe');
    case 'OrExpression':
      return pair('ASTOrExpression');
    case 'AndExpression':
      return pair('ASTAndExpression');
    case 'FilterProjection':
      return node('ASTFilterProjection', [child('left'), child('right'), child('condition')]);
    case 'Flatten':
      return node('ASTFlatten', [child('child')]);
    case 'NotExpression':
      return node('ASTNotExpression', [child('child')]);
    case 'ExpressionReference':
      return node('ASTExpRef', [child('child')]);
    case 'Comparator':
      return node('ASTComparator', [child('left'), child('right')], `TOK${String(n['name'])}`);
    case 'Arithmetic':
      return node('ASTArithmeticExpression', [child('left'), child('right')], `TOK${String(n['operator'])}`);
    case 'Unary':
      return node('ASTArithmeticUnaryExpression', [child('operand')], `TOK${String(n['operator'])}`);
    case 'Function':
      return node('ASTFunctionExpression', (n['children'] as JsNode[]).map(toGo), field(n['name']));
    case 'MultiSelectList':
      return node('ASTMultiSelectList', (n['children'] as JsNode[]).map(toGo));
    case 'MultiSelectHash':
      return node(
        'ASTMultiSelectHash',
        (n['children'] as JsNode[]).map((kv) =>
          node('ASTKeyValPair', [toGo(kv['value'] as JsNode)], field(kv['name'])),
        ),
      );
    case 'LetExpression':
      return node('ASTLetExpression', [
        node(
          'ASTBindings',
          (n['bindings'] as JsNode[]).map((b) =>
            node('ASTBinding', [toGo(b['reference'] as JsNode)], field(b['variable'])),
          ),
        ),
        child('expression'),
      ]);
    case 'Variable':
      return node('ASTVariable', [], field(n['name']));
    default:
      return node(`AST${n.type}`);
  }
}

/** go-jmespath's `ASTNode.PrettyPrint` (what `kyverno jp parse` prints), an unclosed `children: {` included. */
function prettyPrint(n: GoNode, indent: number): string {
  const spaces = ' '.repeat(indent);
  const inner = ' '.repeat(indent + 2);
  let out = `${spaces}${n.type} {\n`;
  if (n.value !== undefined) out += `${inner}value: ${n.value}\n`;
  if (n.children.length > 0) {
    out += `${inner}children: {\n`;
    for (const c of n.children) out += prettyPrint(c, indent + 4);
  }
  return out + `${spaces}}\n`;
}

/** The AST dump of `expression` as Kyverno's `jp parse` prints it. */
export function printAst(expression: string): string {
  return prettyPrint(toGo(parseExpression(expression)), 0);
}
