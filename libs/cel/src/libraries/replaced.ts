/**
 * cel-js's own overloads of these methods differ from cel-go (UTF-16 indexes instead of code
 * points, Unicode case mapping in lowerAscii, JavaScript's whitespace in trim, backtracking
 * regular expressions in matches) and cannot be replaced in place (cel-js refuses an overlapping
 * overload). Calls to them are renamed in the parsed tree to Edict's implementations, registered
 * under the replaced name; messages name the method as written.
 */
const REPLACED = ['matches', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'trim', 'substring', 'split'];
const SUFFIX = '__edict';

export const REPLACED_METHODS: ReadonlyMap<string, string> = new Map(REPLACED.map((name) => [name, replaced(name)]));

/** The name Edict's implementation of a replaced method is registered under. */
export function replaced(name: string): string {
  return `${name}${SUFFIX}`;
}

/**
 * A message with the names written as in the expression: replaced methods without their suffix,
 * namespace functions without their type (`math.greatest`, not `math.Namespace.greatest`).
 */
export function restoreReplacedNames(text: string): string {
  const unsuffixed = text.includes(SUFFIX) ? text.split(SUFFIX).join('') : text;
  return unsuffixed.replace(/\b([A-Za-z_][A-Za-z0-9_]*)\.Namespace\./g, '$1.');
}
