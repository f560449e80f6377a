/**
 * Where a native policy binding's `paramRef` finds its parameter objects in background scans: the
 * API server (the reports controller's own permissions), the paramKind's scope from discovery. A
 * selector is applied to at most MAX_LISTED objects of the kind (pages of 500), and what a binding
 * may select is bounded again by @edict/native-policies (MAX_PARAMS_PER_BINDING).
 */
import { matchesLabelSelector, type JsonObject, type KubeObject } from '@edict/foundation';
import { servedTypes, type DiscoverySource, type KubeResources } from '@edict/kube';
import type { ParamKind, ParamSource } from '@edict/native-policies';

const PAGE_SIZE = 500;
/** Objects of a paramKind looked through for one selector: more is a misconfiguration, not a param set. */
export const MAX_LISTED = 5_000;

export function clusterParamSource(
  resources: Pick<KubeResources, 'find' | 'listPage'>,
  discovery: DiscoverySource,
): ParamSource {
  return {
    namespaced: async (paramKind) => {
      const served = await servedTypes(discovery, selectorOf(paramKind));
      const type = served.find((candidate) => candidate.apiVersion === paramKind.apiVersion);
      if (!type) throw new Error(`paramKind ${paramKind.apiVersion}/${paramKind.kind} is not served by the API server`);
      return type.namespaced;
    },
    get: async (paramKind, namespace, name) =>
      (await resources.find<KubeObject>({
        apiVersion: paramKind.apiVersion,
        kind: paramKind.kind,
        name,
        ...(namespace ? { namespace } : {}),
      })) as JsonObject | undefined,
    list: async (paramKind, namespace, selector) => {
      const found: JsonObject[] = [];
      let next: string | undefined;
      let seen = 0;
      do {
        const page = await resources.listPage<KubeObject>(
          { apiVersion: paramKind.apiVersion, kind: paramKind.kind, ...(namespace ? { namespace } : {}) },
          { limit: PAGE_SIZE, ...(next ? { continue: next } : {}) },
        );
        for (const item of page.items) {
          if (matchesLabelSelector(selector, item.metadata?.labels ?? {})) found.push(item as JsonObject);
        }
        seen += page.items.length;
        next = page.continue;
        if (next && seen >= MAX_LISTED) {
          throw new Error(`paramRef.selector: more than ${MAX_LISTED} ${paramKind.kind} objects to look through`);
        }
      } while (next);
      return found;
    },
  };
}

/** `group/version/Kind` (or `version/Kind` for the core group), the selector discovery resolves. */
function selectorOf(paramKind: ParamKind): string {
  return `${paramKind.apiVersion}/${paramKind.kind}`;
}
