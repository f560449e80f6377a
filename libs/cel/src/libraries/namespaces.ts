import type { Environment } from '@marcbachmann/cel-js';
import { namespaceType } from './namespace';

/**
 * The namespaces of cel-go's extensions and Kubernetes' libraries (`math.greatest`, `strings.quote`,
 * `base64.encode`, `lists.range`, `sets.contains`, `format.named`, `ip.isCanonical`), declared in
 * the base environment so Kyverno's libraries add to the same ones (`math.round`). See namespace.ts.
 */
const CEL_NAMESPACES = ['math', 'strings', 'base64', 'lists', 'sets', 'format', 'ip'];

export function registerNamespaces(env: Environment): void {
  for (const name of CEL_NAMESPACES) namespaceType(env, name);
}
