import { Environment, ParseError } from '@marcbachmann/cel-js';
import type { AstNode } from './internals';

/**
 * CEL syntax cel-js 8.0.0's parser lacks, added to its parser and lexer (the one patch of cel-js
 * internals in Edict; `pinned.spec.ts` fails if the pinned version changes). Every addition only
 * accepts input cel-js rejected, except bytes literals, which now hold the UTF-8 of non-ASCII text
 * as CEL says (cel-js kept the low byte of each character):
 * - optional entries `[?x, y]` and `{?k: v}` (the `?` marks the element or key; see optional-entries.ts),
 * - raw bytes literals `br'...'` / `rb'...'`,
 * - floating-point literals starting with a dot (`.99`),
 * - backquoted field names (`` m.`foo.txt` ``),
 * - typed object construction `Name{field: value}` / `Object.spec{...}` (see objects.ts).
 */
export function installSyntax(): void {
  if (installed) return;
  const parser = probeParser();
  const parserProto = Object.getPrototypeOf(parser) as ParserInternals;
  const lexerProto = Object.getPrototypeOf(parser.lexer) as LexerInternals;
  const tokens = tokenTypes(parser.lexer);
  patchOptionalEntries(parserProto);
  patchObjectConstruction(parserProto, tokens);
  patchLexer(lexerProto, tokens);
  installed = true;
}

let installed = false;

/** The AST meta key holding the type name of an object construction `Name{...}` (a map node). */
export const OBJECT_CONSTRUCTION = 'edictObjectConstruction';

/** The AST meta key marking an element or key written with a leading `?`. */
export const OPTIONAL_ENTRY = 'edictOptionalEntry';

interface LexerInternals {
  input: string;
  pos: number;
  length: number;
  tokenType: number;
  reset(input: string): string;
  nextToken(): LexerInternals;
  token(pos: number, type: number, value?: unknown): LexerInternals;
  readString(delimiter: string, prefix?: string): LexerInternals;
  processEscapes(offset: number, text: string, isBytes: boolean): string;
  _closeQuotedString(rawStart: number, rawValue: string, prefix: string | undefined, pos: number): LexerInternals;
  _readDigits(input: string, length: number, pos: number): number;
  _readExponent(input: string, length: number, pos: number): number;
  _parseAsDouble(start: number, end: number): LexerInternals;
}

interface ParserInternals {
  lexer: LexerInternals;
  input: string;
  pos: number;
  type: number;
  parseExpression(): AstNode;
  parsePostfix(): AstNode;
  parsePrimary(): AstNode;
  parseMap(): AstNode;
  edictPrimary?: AstNode;
  consume(type: number): number;
}

interface Tokens {
  readonly question: number;
  readonly lbrace: number;
  readonly bytes: number;
  readonly identifier: number;
}

/** The parser instance, reached through the `parser` cel-js hands to a macro expander. */
function probeParser(): ParserInternals {
  let parser: ParserInternals | undefined;
  const env = new Environment().registerFunction('edictProbeParser(ast): bool', (call: { parser: ParserInternals }) => {
    parser = call.parser;
    return { typeCheck: () => undefined, evaluate: () => true };
  });
  env.parse('edictProbeParser(1)');
  if (!parser?.lexer || typeof parser.parseExpression !== 'function')
    throw new Error('cannot extend the CEL parser: the cel-js parser is not the one Edict was built against');
  return parser;
}

function tokenTypes(lexer: LexerInternals): Tokens {
  const typeOf = (text: string) => {
    lexer.reset(text);
    return lexer.nextToken().tokenType;
  };
  return { question: typeOf('?'), lbrace: typeOf('{'), bytes: typeOf("b''"), identifier: typeOf('a') };
}

/** `?` before a list element or a map key: parsed as the expression, marked for optional-entries.ts. */
function patchOptionalEntries(proto: ParserInternals): void {
  const parseExpression = proto.parseExpression;
  proto.parseExpression = function (this: ParserInternals): AstNode {
    if (this.input[this.pos] !== '?') return parseExpression.call(this);
    this.consume(this.type);
    return parseExpression.call(this).setMeta(OPTIONAL_ENTRY, true);
  };
}

/**
 * `Name{f: v}`: a (dotted) name followed by a brace is CEL's message construction, which cel-js does
 * not parse (a brace after an expression is otherwise a syntax error). The entries are parsed as a
 * map literal's and the node is marked with the name; objects.ts checks and evaluates it.
 */
function patchObjectConstruction(proto: ParserInternals, tokens: Tokens): void {
  const parsePostfix = proto.parsePostfix;
  const parsePrimary = proto.parsePrimary;
  proto.parsePostfix = function (this: ParserInternals): AstNode {
    const expr = parsePostfix.call(this);
    if (this.type !== tokens.lbrace) return expr;
    const name = dottedName(expr);
    if (name === undefined) return expr;
    // Selections and indexes may follow (`Object{...}.spec`): parse on with the object as the primary.
    this.edictPrimary = this.parseMap().setMeta(OBJECT_CONSTRUCTION, name);
    return parsePostfix.call(this);
  };
  proto.parsePrimary = function (this: ParserInternals): AstNode {
    const pending = this.edictPrimary;
    if (!pending) return parsePrimary.call(this);
    this.edictPrimary = undefined;
    return pending;
  };
}

/** `a.b.c` written as identifiers and plain selections, or undefined. */
function dottedName(node: AstNode): string | undefined {
  if (node.op === 'id') return node.args as unknown as string;
  if (node.op !== '.') return undefined;
  const [operand, field] = node.args as unknown as [AstNode, string];
  const prefix = dottedName(operand);
  return prefix === undefined ? undefined : `${prefix}.${field}`;
}

function patchLexer(proto: LexerInternals, tokens: Tokens): void {
  const nextToken = proto.nextToken;
  proto.nextToken = function (this: LexerInternals): LexerInternals {
    const { input, length } = this;
    let pos = this.pos;
    while (pos < length && ' \t\n\r'.includes(input[pos] as string)) pos++;
    const ch = input[pos];
    const next = input[pos + 1];
    if (ch === '.' && next !== undefined && next >= '0' && next <= '9') {
      let end = this._readDigits(input, length, pos + 1);
      end = this._readExponent(input, length, end);
      this.pos = end;
      return this._parseAsDouble(pos, end);
    }
    if (ch === '`') {
      const close = input.indexOf('`', pos + 1);
      if (close < 0) throw parseError('unterminated backquoted identifier', input, pos);
      this.pos = close + 1;
      return this.token(pos, tokens.identifier, input.slice(pos + 1, close));
    }
    if (ch !== undefined && next !== undefined && /^(?:[bB][rR]|[rR][bB])$/.test(ch + next)) {
      const quote = input[pos + 2];
      if (quote === '"' || quote === "'") {
        this.pos = pos + 2;
        return this.readString(quote, 'rawBytes');
      }
    }
    return nextToken.call(this);
  };

  const close = proto._closeQuotedString;
  proto._closeQuotedString = function (this: LexerInternals, rawStart, rawValue, prefix, pos): LexerInternals {
    if (prefix === 'rawBytes') return this.token(pos - 2, tokens.bytes, new TextEncoder().encode(rawValue));
    if (
      (prefix === 'b' || prefix === 'B') &&
      /[^ -~\t\n\r\\]/.test(rawValue) &&
      [...rawValue].some((c) => c.charCodeAt(0) > 0x7f)
    ) {
      return this.token(pos - 1, tokens.bytes, bytesLiteral(this, rawStart, rawValue));
    }
    return close.call(this, rawStart, rawValue, prefix, pos);
  };
}

/** A bytes literal's bytes: escapes give raw bytes, other text its UTF-8. */
function bytesLiteral(lexer: LexerInternals, rawStart: number, raw: string): Uint8Array {
  const out: number[] = [];
  const encoder = new TextEncoder();
  let i = 0;
  while (i < raw.length) {
    if (raw[i] === '\\' && i + 1 < raw.length) {
      const next = raw[i + 1] as string;
      const length = next === 'x' || next === 'X' || (next >= '0' && next <= '7') ? 4 : 2;
      const escaped = lexer.processEscapes(rawStart + i, raw.slice(i, i + length), true);
      for (const char of escaped) out.push(char.charCodeAt(0) & 0xff);
      i += length;
      continue;
    }
    const codePoint = raw.codePointAt(i) as number;
    const char = String.fromCodePoint(codePoint);
    out.push(...encoder.encode(char));
    i += char.length;
  }
  return Uint8Array.from(out);
}

function parseError(message: string, input: string, pos: number): ParseError {
  return new ParseError({
    message,
    range: { start: pos, end: pos + 1 },
    node: { pos, start: pos, end: pos + 1, input },
  });
}
