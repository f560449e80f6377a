import { isBreak, isPrintable, scalarStyle } from './go-yaml-scalar';

/**
 * Serialises a two-level string map (`policy -> rule -> message`) byte for byte as Go's
 * gopkg.in/yaml.v2 `Marshal` does: keys sorted with its natural order, strings quoted and folded at
 * column 80 the way its emitter does. Kyverno builds its deny message this way, and users (and
 * their scripts) read that text, so we reproduce it instead of using a JS YAML printer.
 */
export function marshalNestedStringMap(data: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  if (data.size === 0) return '{}\n';
  const emitter = new Emitter();
  for (const policy of sortKeys([...data.keys()])) {
    emitter.key(policy, 0);
    const rules = data.get(policy) as ReadonlyMap<string, string>;
    for (const rule of sortKeys([...rules.keys()])) {
      emitter.key(rule, 2);
      emitter.value(rules.get(rule) as string, 4);
    }
  }
  emitter.writeIndent(0);
  return emitter.out;
}

const BEST_WIDTH = 80;
/** yaml.v2 writes a key longer than this (in bytes) in the explicit `? key` form. */
const MAX_SIMPLE_KEY = 128;

class Emitter {
  out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = 0;

  key(text: string, indent: number): void {
    this.indent = indent;
    this.writeIndent(indent);
    const simple = Buffer.byteLength(text) <= MAX_SIMPLE_KEY && !text.includes('\n');
    if (simple) {
      this.scalar(text, true);
      this.indicator(':', false, false, false);
      return;
    }
    this.indicator('?', true, false, true);
    this.indent = indent + 2;
    this.scalar(text, false);
    this.indent = indent;
    this.writeIndent(indent);
    this.indicator(':', true, false, true);
  }

  value(text: string, indent: number): void {
    this.indent = indent;
    this.scalar(text, false);
  }

  writeIndent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.newline();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private scalar(text: string, simpleKey: boolean): void {
    const cps = [...text].map((ch) => ch.codePointAt(0) as number);
    const allowBreaks = !simpleKey;
    switch (scalarStyle(cps, text, simpleKey)) {
      case 'plain':
        return this.plain(cps, allowBreaks);
      case 'single':
        return this.singleQuoted(cps, allowBreaks);
      case 'double':
        return this.doubleQuoted(cps, allowBreaks);
      case 'literal':
        return this.literal(cps);
    }
  }

  private plain(cps: readonly number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number;
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && cps[i + 1] !== 0x20) this.writeIndent(this.indent);
        else this.write(c);
        spaces = true;
      } else {
        this.write(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(cps: readonly number[], allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number;
      if (c === 0x20) {
        const fold =
          allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1 && cps[i + 1] !== 0x20;
        if (fold) this.writeIndent(this.indent);
        else this.write(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.newline();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(this.indent);
        if (c === 0x27) this.put("'");
        this.write(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(cps: readonly number[], allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number;
      if (!isPrintable(c) || c === 0xfeff || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\');
        this.put(escapeOf(c));
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== cps.length - 1) {
          this.writeIndent(this.indent);
          if (cps[i + 1] === 0x20) this.put('\\');
        } else this.write(c);
        spaces = true;
      } else {
        this.write(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(cps: readonly number[]): void {
    this.indicator('|', true, false, false);
    if (cps[0] === 0x20 || isBreak(cps[0])) this.indicator('2', false, false, false);
    const last = cps[cps.length - 1];
    if (!isBreak(last)) this.indicator('-', false, false, false);
    else if (cps.length === 1 || isBreak(cps[cps.length - 2])) this.indicator('+', false, false, false);
    this.newline();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) {
          this.writeIndent(this.indent);
          breaks = false;
        }
        this.write(c);
        this.indention = false;
      }
    }
  }

  private indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of text) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private write(cp: number): void {
    this.out += String.fromCodePoint(cp);
    this.column++;
  }

  private put(ch: string): void {
    this.out += ch;
    this.column++;
  }

  private writeBreak(cp: number): void {
    if (cp === 0x0a) this.newline();
    else {
      this.out += String.fromCodePoint(cp);
      this.column = 0;
    }
  }

  private newline(): void {
    this.out += '\n';
    this.column = 0;
  }
}

const NAMED_ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

function escapeOf(cp: number): string {
  const named = NAMED_ESCAPES[cp];
  if (named !== undefined) return named;
  const [prefix, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
  return prefix + cp.toString(16).toUpperCase().padStart(width, '0');
}

const isLetter = (ch: string) => /\p{L}/u.test(ch);
const isDigit = (ch: string) => /\p{Nd}/u.test(ch);

/** yaml.v2's `keyList.Less` for string keys: letters after other characters, digit runs numerically. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return goLess(a, b) ? -1 : 1;
}

function goLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string;
    const y = br[i] as string;
    if (x === y) continue;
    const xl = isLetter(x);
    const yl = isLetter(y);
    if (xl && yl) return (x.codePointAt(0) as number) < (y.codePointAt(0) as number);
    if (xl || yl) return yl;
    let an = 0;
    let bn = 0;
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = an * 10 + ((ar[ai] as string).charCodeAt(0) - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = bn * 10 + ((br[bi] as string).charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (x.codePointAt(0) as number) < (y.codePointAt(0) as number);
  }
  return ar.length < br.length;
}

function sortKeys(keys: string[]): string[] {
  return keys.sort(compareKeys);
}
