/**
 * Kyverno anchors on pattern keys: `(k)` condition, `<(k)` global, `^(k)` existence, `=(k)` equality,
 * `X(k)` negation, `+(k)` add-if-not-present. Parsing follows Kyverno's byte scanner (not a regex):
 * the key must end with `)` and start with `(` or one modifier character; what sits between is the key.
 */
export type AnchorModifier = '' | '<' | '^' | '=' | 'X' | '+';

export interface Anchor {
  readonly modifier: AnchorModifier;
  /** The resource key the anchor refers to. */
  readonly key: string;
}

const MODIFIERS = new Set<string>(['+', '=', 'X', '^', '<']);

/** The anchor a pattern key denotes, or `undefined` for a plain key. */
export function parseAnchor(text: string): Anchor | undefined {
  if (text.length < 2 || text[text.length - 1] !== ')') return undefined;
  let modifier: AnchorModifier;
  let key: string;
  if (text[0] === '(') {
    modifier = '';
    key = text.slice(1, -1);
  } else if (MODIFIERS.has(text[0]!)) {
    // Kyverno skips the character after the modifier without checking that it is `(`.
    modifier = text[0] as AnchorModifier;
    key = text.slice(2, -1);
  } else {
    return undefined;
  }
  return key === '' ? undefined : { modifier, key };
}

/** The pattern key for an anchor: `=(key)`, `(key)`, ... */
export function formatAnchor(modifier: AnchorModifier, key: string): string {
  return `${modifier}(${key})`;
}

/** Anchors evaluated before the plain keys of a map (globals are evaluated with the plain keys, first). */
export function isLeadingAnchor(anchor: Anchor | undefined): boolean {
  return (
    anchor !== undefined &&
    (anchor.modifier === '' || anchor.modifier === '^' || anchor.modifier === '=' || anchor.modifier === 'X')
  );
}

/** Anchors that make a pattern subtree "anchored" for ordering (every kind except `+`). */
export function isOrderingAnchor(anchor: Anchor | undefined): boolean {
  return anchor !== undefined && anchor.modifier !== '+';
}
