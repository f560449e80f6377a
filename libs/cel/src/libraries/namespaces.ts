import type { Environment } from '@marcbachmann/cel-js';

/**
 * The namespaces of cel-go's extensions and Kubernetes' libraries (`math.greatest`, `strings.quote`,
 * `base64.encode`, `lists.range`, `sets.contains`, `format.named`, `ip.isCanonical`). cel-js has no qualified function
 * names, so each namespace is a constant of a type of the same name and its functions are methods of
 * that type; an error then reads `math.greatest(string)`. Another library adds functions to a
 * namespace by registering methods on the same type name (Kyverno's `math.round` on `math`).
 */
export const CEL_NAMESPACES = ['math', 'strings', 'base64', 'lists', 'sets', 'format', 'ip'] as const;
export type CelNamespace = (typeof CEL_NAMESPACES)[number];

/** Declares every namespace once (libraries register their methods on it). */
export function registerNamespaces(env: Environment): void {
  for (const name of CEL_NAMESPACES) {
    const namespace = { [name]: class {} }[name]!;
    env.registerType(name, namespace);
    env.registerConstant(name, name, new namespace());
  }
}
