/**
 * The glob syntax of Kyverno's matchImageReferences (gobwas/glob without separators): `*` any
 * run of characters (`/` included), `?` one character, `[abc]`, `[a-z]`, `[!abc]` a class,
 * `{a,b}` alternatives, `\` escapes. Matching is a table walk, linear in pattern × image: a policy's
 * pattern can never make it backtrack.
 */
export class ImageGlob {
  private constructor(private readonly alternatives: readonly Token[][]) {}

  /** Throws an Error naming what is wrong with the pattern. */
  static compile(pattern: string): ImageGlob {
    if (pattern.length > MAX_PATTERN) throw new Error(`the pattern is longer than ${MAX_PATTERN} characters`);
    const parser = new Parser(pattern);
    const alternatives = parser.sequence(false);
    if (parser.position < pattern.length) throw new Error(`unexpected ${JSON.stringify(pattern[parser.position])}`);
    return new ImageGlob(alternatives);
  }

  matches(text: string): boolean {
    if (text.length > MAX_TEXT) return false;
    return this.alternatives.some((tokens) => matchTokens(tokens, text));
  }
}

const MAX_PATTERN = 1_024;
const MAX_TEXT = 4_096;
const MAX_ALTERNATIVES = 64;

type Token =
  | { kind: 'literal'; char: string }
  | { kind: 'any' }
  | { kind: 'one' }
  | { kind: 'class'; negated: boolean; ranges: [string, string][] };

class Parser {
  position = 0;
  constructor(private readonly pattern: string) {}

  /** Alternatives of token sequences up to the end (or, inside `{}`, to `,` or `}`). */
  sequence(inBraces: boolean): Token[][] {
    let current: Token[][] = [[]];
    while (this.position < this.pattern.length) {
      const char = this.pattern[this.position] as string;
      if (inBraces && (char === ',' || char === '}')) break;
      this.position++;
      if (char === '\\') {
        const escaped = this.pattern[this.position];
        if (escaped === undefined) throw new Error('the pattern ends with an escape');
        this.position++;
        current = append(current, [[{ kind: 'literal', char: escaped }]]);
      } else if (char === '*') {
        while (this.pattern[this.position] === '*') this.position++;
        current = append(current, [[{ kind: 'any' }]]);
      } else if (char === '?') current = append(current, [[{ kind: 'one' }]]);
      else if (char === '[') current = append(current, [[this.charClass()]]);
      else if (char === '{') current = append(current, this.braces());
      else current = append(current, [[{ kind: 'literal', char }]]);
    }
    return current;
  }

  private braces(): Token[][] {
    const options: Token[][] = [];
    for (;;) {
      options.push(...this.sequence(true));
      const next = this.pattern[this.position];
      if (next === undefined) throw new Error('unclosed "{"');
      this.position++;
      if (next === '}') return options;
    }
  }

  private charClass(): Token {
    let negated = false;
    if (this.pattern[this.position] === '!') {
      negated = true;
      this.position++;
    }
    const ranges: [string, string][] = [];
    while (this.pattern[this.position] !== ']') {
      const first = this.pattern[this.position];
      if (first === undefined) throw new Error('unclosed "["');
      this.position++;
      if (this.pattern[this.position] === '-' && this.pattern[this.position + 1] !== ']') {
        const last = this.pattern[this.position + 1];
        if (last === undefined) throw new Error('unclosed "["');
        if (last < first) throw new Error(`invalid range ${first}-${last}`);
        this.position += 2;
        ranges.push([first, last]);
      } else ranges.push([first, first]);
    }
    this.position++;
    if (ranges.length === 0) throw new Error('empty character class');
    return { kind: 'class', negated, ranges };
  }
}

/** Every combination of the sequences so far with the next piece's alternatives (bounded). */
function append(current: Token[][], next: Token[][]): Token[][] {
  const out: Token[][] = [];
  for (const head of current) for (const tail of next) out.push([...head, ...tail]);
  if (out.length > MAX_ALTERNATIVES) throw new Error(`the pattern has more than ${MAX_ALTERNATIVES} alternatives`);
  return out;
}

function matchTokens(tokens: readonly Token[], text: string): boolean {
  // reachable[i]: the tokens seen so far can match text[0, i).
  let reachable = new Array<boolean>(text.length + 1).fill(false);
  reachable[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    if (token.kind === 'any') {
      let seen = false;
      for (let i = 0; i <= text.length; i++) {
        seen ||= reachable[i] === true;
        next[i] = seen;
      }
    } else {
      for (let i = 0; i < text.length; i++) {
        if (reachable[i] && matchesOne(token, text[i] as string)) next[i + 1] = true;
      }
    }
    reachable = next;
  }
  return reachable[text.length] === true;
}

function matchesOne(token: Exclude<Token, { kind: 'any' }>, char: string): boolean {
  if (token.kind === 'literal') return token.char === char;
  if (token.kind === 'one') return true;
  const inside = token.ranges.some(([first, last]) => char >= first && char <= last);
  return inside !== token.negated;
}
