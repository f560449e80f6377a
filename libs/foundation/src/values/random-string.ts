import { compileGoRegexp } from './go-regexp';

/**
 * A small regex-driven string generator in the spirit of goregen (what Kyverno's random() uses):
 * literals, classes ([a-z0-9], \d, \w, \s, negations), '.', groups, alternation and quantifiers.
 * Unbounded repeats stop at min+10 like goregen's default. Go's parser already caps repeat counts
 * (1000, nested ones multiplied); nested stars and long concatenations could still ask for huge
 * strings, so a pattern whose longest output passes MAX_RANDOM_LENGTH is refused before generating.
 */

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
const DIGITS = [...'0123456789'];
const WORD = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'];
const SPACE = [' ', '\t', '\n', '\r', '\f', '\v'];
const MAX_UNBOUNDED = 10;
export const MAX_RANDOM_LENGTH = 64 * 1024;

type Node =
  | { kind: 'chars'; set: string[] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const complement = (set: string[]) => PRINTABLE.filter((c) => !set.includes(c));

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new Error(`unexpected ${this.src[this.pos]}`);
    return node;
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.src[this.pos] === '|') {
      this.pos++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'seq', items };
  }

  private quantified(node: Node): Node {
    const c = this.src[this.pos];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, MAX_UNBOUNDED];
    else if (c === '+') [min, max] = [1, 1 + MAX_UNBOUNDED];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) return node;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] ? Number(m[3]) : min + MAX_UNBOUNDED;
      this.pos += m[0].length - 1;
    } else return node;
    this.pos++;
    if (this.src[this.pos] === '?') this.pos++; // lazy marker: same generation
    return this.quantified({ kind: 'repeat', node, min, max });
  }

  private atom(): Node {
    const c = this.src[this.pos++]!;
    if (c === '(') {
      if (this.src.startsWith('?:', this.pos)) this.pos += 2;
      else if (this.src.startsWith('?P<', this.pos) || this.src.startsWith('?<', this.pos))
        this.pos = this.src.indexOf('>', this.pos) + 1;
      const inner = this.alternation();
      this.pos++; // ')'
      return inner;
    }
    if (c === '[') return { kind: 'chars', set: this.charClass() };
    if (c === '.') return { kind: 'chars', set: PRINTABLE };
    if (c === '^' || c === '$') return { kind: 'seq', items: [] };
    if (c === '\\') return { kind: 'chars', set: this.escape() };
    return { kind: 'chars', set: [c] };
  }

  private escape(): string[] {
    const c = this.src[this.pos++]!;
    switch (c) {
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'n':
        return ['\n'];
      case 't':
        return ['\t'];
      default:
        return [c];
    }
  }

  private charClass(): string[] {
    const negated = this.src[this.pos] === '^';
    if (negated) this.pos++;
    const set: string[] = [];
    let first = true;
    while (this.pos < this.src.length && (this.src[this.pos] !== ']' || first)) {
      first = false;
      let from: string[];
      if (this.src[this.pos] === '\\') {
        this.pos++;
        from = this.escape();
      } else from = [this.src[this.pos++]!];
      if (
        from.length === 1 &&
        this.src[this.pos] === '-' &&
        this.src[this.pos + 1] !== ']' &&
        this.pos + 1 < this.src.length
      ) {
        this.pos++;
        const to = this.src[this.pos] === '\\' ? (this.pos++, this.escape()[0]!) : this.src[this.pos++]!;
        for (let code = from[0]!.charCodeAt(0); code <= to.charCodeAt(0); code++) set.push(String.fromCharCode(code));
      } else set.push(...from);
    }
    this.pos++; // ']'
    return negated ? complement(set) : set;
  }
}

function generate(node: Node): string {
  switch (node.kind) {
    case 'chars':
      return node.set.length ? pick(node.set) : '';
    case 'seq':
      return node.items.map(generate).join('');
    case 'alt':
      return generate(pick(node.options));
    case 'repeat': {
      const count = node.min + Math.floor(Math.random() * (node.max - node.min + 1));
      let out = '';
      for (let i = 0; i < count; i++) out += generate(node.node);
      return out;
    }
  }
}

/** The length of the longest string `node` can generate. */
function longest(node: Node): number {
  switch (node.kind) {
    case 'chars':
      return 1;
    case 'seq':
      return node.items.reduce((total, item) => total + longest(item), 0);
    case 'alt':
      return node.options.reduce((most, option) => Math.max(most, longest(option)), 0);
    case 'repeat':
      return node.max === 0 ? 0 : node.max * longest(node.node);
  }
}

/** A random string matching `pattern`; throws on an empty, invalid or too generous pattern. */
export function randomFromPattern(pattern: string): string {
  if (pattern === '') throw new Error('no pattern provided');
  compileGoRegexp(pattern); // reject what Go would not parse
  const node = new Parser(pattern).parse();
  const length = longest(node);
  if (length > MAX_RANDOM_LENGTH) {
    throw new Error(
      `pattern can generate strings of up to ${length} characters, more than the ${MAX_RANDOM_LENGTH} random() allows`,
    );
  }
  return generate(node);
}
