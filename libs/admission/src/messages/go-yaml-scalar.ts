/**
 * How Go's gopkg.in/yaml.v2 sees a string scalar: which quoting style it picks and whether the
 * string would read back as something other than a string. Kyverno marshals its deny message with
 * yaml.v2, so the user sees exactly these choices.
 */

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

/** yaml.v2's `is_printable` on a code point (UTF-8 4-byte characters are not printable there). */
export function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

export function isBreak(cp: number | undefined): boolean {
  return cp === 0x0d || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

const isBlank = (cp: number | undefined) => cp === 0x20 || cp === 0x09;

interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** yaml.v2's `yaml_emitter_analyze_scalar`, for block context (flow styles are never used here). */
function analyze(cps: readonly number[]): ScalarAnalysis {
  if (cps.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  const text = String.fromCodePoint(...cps.slice(0, 3));
  if (text === '---' || text === '...') blockIndicators = true;
  let precededByWhitespace = true;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as number;
    const followedByWhitespace = i + 1 >= cps.length || isBlank(cps[i + 1]);
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByWhitespace) blockIndicators = true;
    } else if (ch === ':' && followedByWhitespace) blockIndicators = true;
    else if (ch === '#' && precededByWhitespace) blockIndicators = true;

    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c) || c === 0;
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks || blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

const NON_STRINGS = new Set(
  (
    'y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF ~ null Null NULL ' +
    '.nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<'
  ).split(' '),
);
const INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?(Z|[-+][0-9]{2}:[0-9]{2})?)?$/;
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * Whether yaml.v2 would read the unquoted string as null, a bool, a number or a timestamp, in which
 * case its encoder quotes it (double quotes).
 */
export function resolvesToNonString(s: string): boolean {
  if (s === '' || NON_STRINGS.has(s)) return true;
  const first = s[0] as string;
  if (first === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (!/[-+0-9]/.test(first)) return false;
  if (TIMESTAMP.test(s) || BASE60.test(s)) return true;
  const plain = s.replace(/_/g, '');
  return INT.test(plain) || FLOAT.test(plain);
}

/** The style yaml.v2 writes a string in, as a mapping key (`simpleKey`) or a block mapping value. */
export function scalarStyle(cps: readonly number[], s: string, simpleKey: boolean): ScalarStyle {
  let style: ScalarStyle = s.includes('\n') ? 'literal' : resolvesToNonString(s) ? 'double' : 'plain';
  const analysis = analyze(cps);
  if (simpleKey && analysis.multiline) style = 'double';
  if (style === 'plain') {
    if (!analysis.blockPlainAllowed) style = 'single';
    if (cps.length === 0 && simpleKey) style = 'single';
  }
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
  return style;
}
