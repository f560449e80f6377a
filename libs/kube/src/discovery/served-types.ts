/**
 * The served types a policy's kind selector names (`Namespace`, `apps/v1/Deployment`, `*`), through
 * API discovery as Kyverno resolves kinds: one per resource, in its preferred version. A
 * subresource selector names none (there is nothing to list).
 */
import { parseKind } from '@edict/foundation';
import type { DiscoverySource } from './discovery-resolver';
import { apiVersionOf } from './group-version-resources';

export interface ServedType {
  readonly apiVersion: string;
  readonly group: string;
  readonly version: string;
  /** Plural resource name (`pods`). */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

export async function servedTypes(discovery: DiscoverySource, selector: string): Promise<ServedType[]> {
  const parsed = parseKind(selector);
  if (parsed.kind === '' || (parsed.subresource ?? '') !== '') return [];
  const resolve = await discovery.resolver([selector]);
  const seen = new Set<string>();
  const types: ServedType[] = [];
  // One version per resource: the first discovery names (the preferred one).
  for (const found of resolve({ ...parsed, subresource: '' }) ?? []) {
    const key = `${found.group}/${found.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    types.push({
      apiVersion: apiVersionOf(found.group, found.version),
      group: found.group,
      version: found.version,
      resource: found.resource,
      kind: found.kind,
      namespaced: found.namespaced,
      verbs: found.verbs ?? [],
    });
  }
  return types;
}
