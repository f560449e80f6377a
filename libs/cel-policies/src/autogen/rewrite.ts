import { FAMILY_REPLACEMENTS, type AutogenFamily } from './pod-controllers';

/**
 * Rewrites a Pod's field references for a controller family, on the policy's JSON text as Kyverno
 * does (so messages and every expression move together): `object.spec` becomes
 * `object.spec.template.spec` and so on, for `object.` and `oldObject.`. References to the
 * controller's own name and namespace (`object.metadata.name`, `object.metadata.namespace`) stay:
 * a pod template has neither.
 */
export function rewriteForFamily(text: string, family: AutogenFamily): string {
  let result = text;
  for (const { from, to } of FAMILY_REPLACEMENTS[family]) {
    result = replaceUnprotected(result, `object.${from}`, `object.${to}`);
    result = replaceUnprotected(result, `oldObject.${from}`, `oldObject.${to}`);
  }
  return result;
}

const PROTECTED_SUFFIXES = ['.namespace', '.name'];
const IDENTIFIER = /[A-Za-z0-9_]/;

function replaceUnprotected(text: string, from: string, to: string): string {
  let index = text.indexOf(from);
  if (index < 0) return text;
  let out = '';
  let rest = text;
  while (index >= 0) {
    out += rest.slice(0, index);
    rest = rest.slice(index + from.length);
    out += isProtected(rest) ? from : to;
    index = rest.indexOf(from);
  }
  return out + rest;
}

function isProtected(rest: string): boolean {
  return PROTECTED_SUFFIXES.some((suffix) => {
    if (!rest.startsWith(suffix)) return false;
    const next = rest.charAt(suffix.length);
    return next === '' || !IDENTIFIER.test(next);
  });
}
