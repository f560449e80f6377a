import { expressionsUseIdentifier } from '@edict/cel';

/**
 * What an expression refers to, read from its text with string literals blanked out: the
 * environment Kyverno compiles in declares fewer names than Edict's shared CEL environment (no
 * `variables` in match conditions, only declared and earlier variables, no admission request in
 * JSON mode), so those references are checked here, as its type-checker would refuse them.
 */
export function blankStrings(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    if (char !== '"' && char !== "'") {
      out += char;
      i += 1;
      continue;
    }
    const triple = source.startsWith(char.repeat(3), i);
    const quote = triple ? char.repeat(3) : char;
    const raw = /[rR]$/.test(out) && !/[A-Za-z0-9_][rR]$/.test(out);
    let j = i + quote.length;
    while (j < source.length && !source.startsWith(quote, j)) {
      if (source[j] === '\\' && !raw) j += 1;
      j += 1;
    }
    const end = Math.min(source.length, j + quote.length);
    out += quote + ' '.repeat(Math.max(0, end - i - 2 * quote.length)) + (end - i >= 2 * quote.length ? quote : '');
    i = end;
  }
  return out;
}

/** Whether the expression reads a top-level identifier (not a field such as `x.request`); from its syntax tree. */
export function readsIdentifier(source: string, name: string): boolean {
  return expressionsUseIdentifier(name, [source]);
}

/** The `variables.<name>` fields the expression selects, in order of appearance. */
export function variableReferences(source: string): string[] {
  const names: string[] = [];
  for (const match of blankStrings(source).matchAll(/(?<![A-Za-z0-9_.])variables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)) {
    names.push(match[1] as string);
  }
  return names;
}

/** The variables read by index (`variables['name']`): evaluated beforehand too. */
export function indexedVariableReferences(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/(?<![A-Za-z0-9_.])variables\s*\[\s*(['"])([A-Za-z_][A-Za-z0-9_]*)\1\s*\]/g)) {
    names.push(match[2] as string);
  }
  return names;
}
