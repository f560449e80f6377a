import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';

/**
 * The string functions of cel-go's strings extension that cel-js lacks (charAt, replace, reverse). Indices count code points, as CEL does.
 */
export function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = [...text];
    if (index < 0n || index > BigInt(chars.length)) throw celError(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) =>
    replace(text, from, to, -1n),
  );
  env.registerFunction(
    'string.replace(string, string, int): string',
    (text: string, from: string, to: string, count: bigint) => replace(text, from, to, count),
  );
  env.registerFunction('string.reverse(): string', (text: string) => [...text].reverse().join(''));
}

/** Go's strings.Replace: at most `count` replacements (all when negative). */
function replace(text: string, from: string, to: string, count: bigint): string {
  const all = count < 0n;
  let left = count;
  if (from === '') {
    // An empty pattern matches before every code point and at the end.
    let out = '';
    for (const char of [...text, '']) {
      if (all || left-- > 0n) out += to;
      out += char;
    }
    return out;
  }
  let out = '';
  let rest = text;
  while (all || left-- > 0n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}
