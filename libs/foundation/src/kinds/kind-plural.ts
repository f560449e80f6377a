/**
 * The resource name Kubernetes' code generators give a kind (gengo's plural namer, which built-in
 * types and most CRDs follow): lower case, `-s`/`-x`/`-z`/`-ch`/`-sh` take `es`, a consonant before
 * a final `y` makes `ies`, everything else takes `s`; `Endpoints` is already plural (as in
 * apimachinery's RESTMapper). Only a guess: discovery knows the real name.
 */
export function pluralOfKind(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('endpoints')) return lower;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
